/**
 * Join storm and steady state at scale: every member joins through `--seeds` seed members at the
 * same instant, run until every member sees every other alive, then a steady window.
 * Run: cd packages/transport-memory && node --conditions=@swim/source --import tsx bench/storm.ts --nodes 1000 [--seeds 1] [--window 10]
 *      [--seed 1] [--limit 600] [--profile-window FILE.cpuprofile] [--profile-storm FILE.cpuprofile] [--pre-formed]
 * --pre-formed skips the storm: the cluster is pre-formed (Simulation.formCluster) and run 40 s
 * simulated before the window, its push-pulls at their steady rate (a preloaded member draws its
 * first at a random point of its interval): what `pnpm bench speed` measures as its steady state.
 * Prints the storm's traffic, its simulated, wall and CPU time, RSS; then the steady window's
 * speed per wall and per CPU second. --profile-window writes a CPU profile of the window only,
 * --profile-storm one of the join storm only.
 * (`pnpm bench speed --nodes ...` reports the same with both storms; this is the quick loop.)
 * From ~1,500 members on, add NODE_OPTIONS=--max-old-space-size=12288 (the default ~4 GiB heap
 * makes a storm collect garbage without end).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { parseArgs } from 'node:util';
import { Simulation } from '../src/index.js';

const { values } = parseArgs({
  options: { nodes: { type: 'string', default: '1000' }, seeds: { type: 'string', default: '1' }, window: { type: 'string', default: '10' }, seed: { type: 'string', default: '1' }, limit: { type: 'string', default: '600' }, 'profile-window': { type: 'string' }, 'profile-storm': { type: 'string' }, 'pre-formed': { type: 'boolean', default: false } },
});
const nodes = Number(values.nodes);
const seeds = Number(values.seeds);
const windowS = Number(values.window);
const mib = (b: number) => (b / 2 ** 20).toFixed(0);

/** Starts the sampling profiler when `file` is given; the returned function stops it and writes the profile. */
function profileInto(file: string | undefined): () => void {
  if (file === undefined) return () => {};
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  return () =>
    session.post('Profiler.stop', (error, result) => {
      if (error === null) writeFileSync(file, JSON.stringify(result.profile));
      session.disconnect();
    });
}

const t0 = performance.now();
const sim = new Simulation({ seed: Number(values.seed) });
if (values['pre-formed']) {
  sim.formCluster(nodes);
  sim.runFor(40_000);
  console.log(`n=${nodes} pre-formed and run 40 s simulated in ${((performance.now() - t0) / 1000).toFixed(1)} s wall; converged ${sim.converged()}`);
} else {
  const seedNames = Array.from({ length: seeds }, (_, i) => `n${i}`);
  for (let i = 0; i < nodes; i++) sim.addMember(`n${i}`);
  // Seeds first join each other, then everyone else at once.
  for (let i = 1; i < seeds; i++) sim.join(`n${i}`, ['n0']);
  if (seeds > 1) sim.runUntil(() => seedNames.every((s) => seedNames.every((o) => o === s || sim.stateOf(s, o) === 'alive')), 10_000, 10);
  const createdMs = performance.now() - t0;
  const simStart = sim.now;
  for (let i = seeds; i < nodes; i++) sim.join(`n${i}`, seedNames);
  const stopStormProfile = profileInto(values['profile-storm']);
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  let lastReport = w0;
  const convergeSimMs = sim.runUntil(() => {
    const now = performance.now();
    if (now - lastReport > 10_000) {
      lastReport = now;
      console.error(`  ... t=${((sim.now - simStart) / 1000).toFixed(1)} s sim, ${((now - w0) / 1000).toFixed(0)} s wall, rss ${mib(process.memoryUsage().rss)} MiB`);
    }
    return sim.converged();
  }, Number(values.limit) * 1000, 100);
  const convergeWallMs = performance.now() - w0;
  const convergeCpuMs = (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000;
  stopStormProfile();
  const rssConverged = process.memoryUsage().rss;
  {
    let messagesIn = 0;
    let packetsIn = 0;
    for (const m of sim.members()) {
      messagesIn += m.counters.messagesIn;
      packetsIn += m.counters.packetsIn;
    }
    const net = sim.network.counters;
    console.log(`storm traffic: ${packetsIn} packets in, ${messagesIn} messages in (${(messagesIn / nodes).toFixed(0)} per member), ${net.streamsOpened} streams, ${(net.bytesDelivered / 2 ** 20).toFixed(0)} MiB delivered, ${(net.streamBytes / 2 ** 20).toFixed(0)} MiB on streams`);
}
console.log(`n=${nodes} seeds=${seeds}: created in ${(createdMs / 1000).toFixed(1)} s; join storm converged after ${(convergeSimMs / 1000).toFixed(1)} s simulated, ${(convergeWallMs / 1000).toFixed(1)} s wall (${(convergeCpuMs / 1000).toFixed(1)} s cpu); rss ${mib(rssConverged)} MiB`);
}
const before = { ...sim.network.counters };
const stopWindowProfile = profileInto(values['profile-window']);
const s0 = performance.now();
const sc0 = process.cpuUsage();
sim.runFor(windowS * 1000);
const steadyWallMs = performance.now() - s0;
const steadyCpu = process.cpuUsage(sc0);
const steadyCpuMs = (steadyCpu.user + steadyCpu.system) / 1000;
const after = sim.network.counters;
stopWindowProfile();
const perMemberSecond = (x: number) => (x / nodes / windowS).toFixed(2);
console.log(
  `steady: ${(windowS / (steadyWallMs / 1000)).toFixed(2)}x real time over ${windowS} s (${(windowS / (steadyCpuMs / 1000)).toFixed(2)}x per cpu second); packets/member/s ${perMemberSecond(after.packetsDelivered - before.packetsDelivered)}, bytes/member/s ${perMemberSecond(after.bytesDelivered - before.bytesDelivered)}; rss ${mib(process.memoryUsage().rss)} MiB, heap ${mib(process.memoryUsage().heapUsed)} MiB`,
);
