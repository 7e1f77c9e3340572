// The usage example of packages/detectors/README.md (keep the two in step).
// Run: cd packages/detectors && pnpm example
import { createFailureDetector, ExponentialPhi, PhiAccrual, type FailureDetector } from '@swim/detectors';

// Pekko's defaults: threshold 8, 1000 samples, 100 ms floor, 3 s acceptable pause.
const detector: FailureDetector = new PhiAccrual();

// Time is a parameter (monotonic ms). A heartbeat every second, with some jitter.
let now = 0;
for (const jitter of [0, 40, -30, 120, -80, 10, 60, -20, 0, 30]) {
  now += 1000 + jitter;
  detector.heartbeat(now);
}

console.log(`phi after 1 s of silence: ${detector.phi(now + 1000).toFixed(3)}`);
console.log(`phi after 4.5 s of silence: ${detector.phi(now + 4500).toFixed(3)}`);
console.log(`suspect after ${detector.horizon().toFixed(0)} ms of silence, at t = ${detector.deadline()?.toFixed(0)}`);

// A shell arms one timer at deadline(); when it fires, the member is suspect unless a heartbeat
// moved the deadline in the meantime.
const deadline = detector.deadline();
if (deadline !== undefined && !detector.isAvailable(deadline)) console.log('at the deadline: suspect');

// The same threshold under a different distribution is a different promise: Cassandra's
// exponential model waits 8 × ln 10 ≈ 18.4 mean intervals.
const cassandra = new ExponentialPhi({ firstIntervalEstimateMs: 1000 });
const fixed = createFailureDetector({ kind: 'fixed-timeout', timeoutMs: 5000 });
for (const d of [cassandra, fixed]) {
  for (let t = 0; t <= 10_000; t += 1000) d.heartbeat(t);
  console.log(`${d.kind}: threshold ${d.threshold}, suspect after ${d.horizon().toFixed(0)} ms of silence`);
}
