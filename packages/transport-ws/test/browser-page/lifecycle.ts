/**
 * The page of the background-tab test (browser-lifecycle.test.ts): joins through the gateway named
 * in the URL's query (`gateway`, `name`), leaves on `freeze` and joins again on `resume`
 * (leaveOnFreeze), and shows in `window.swim` what it sees, what it accused others of, and how late
 * its timers ran.
 */
import { Member } from '@swim/runtime';
import { connectWsTransport, leaveOnFreeze, leaveOnPageHide } from '../../src/index.js';

interface LifecycleView {
  /** The state this tab's member holds about `name`. */
  state(name: string): string | undefined;
  /** Its member's core counters, and the health score. */
  counters(): Record<string, number>;
  /** How many members it has started (1, then one more per rejoin after a resume). */
  lives: number;
  /** The page's lifecycle events as they came, with `document.visibilityState` at each. */
  events: string[];
  /** The longest gap between two runs of a 100 ms timer chain while the page was hidden. */
  longestHiddenTimerGapMs: number;
  error?: string;
}


const query = new URLSearchParams(location.search);
const name = query.get('name')!;
// The test's config (browser-lifecycle.test.ts); lateTickMs follows the probe interval, as config.ts asks.
const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000, retransmitMult: 4, lateTickMs: 200 };

let member: Member | undefined;
const view: LifecycleView = {
  state: (other) => member?.member(other)?.state,
  counters: () => ({ ...member!.counters, healthScore: member!.healthScore }),
  lives: 0,
  events: [],
  longestHiddenTimerGapMs: 0,
};
// As `window.swim`, read by the test (not declared globally: main.ts declares its own view there).
(window as unknown as { swim: LifecycleView }).swim = view;

for (const type of ['visibilitychange', 'freeze', 'resume']) {
  document.addEventListener(type, () => view.events.push(`${type}:${document.visibilityState}`));
}

// A timer chain, as Chrome's throttling sees one: how late do this page's timers run while hidden?
let last = performance.now();
const tick = () => {
  const now = performance.now();
  if (document.visibilityState === 'hidden') view.longestHiddenTimerGapMs = Math.max(view.longestHiddenTimerGapMs, now - last);
  last = now;
  setTimeout(tick, 100);
};
setTimeout(tick, 100);

async function live(): Promise<void> {
  const transport = await connectWsTransport({ url: query.get('gateway')!, name });
  const current = new Member({ name, transport, preset: 'local', config });
  member = current;
  view.lives++;
  leaveOnPageHide(current);
  leaveOnFreeze(current, { onResume: () => void live().catch(fail) });
  await current.join(transport.seed === undefined ? [] : [transport.seed]);
}

function fail(error: unknown): void {
  view.error = String(error);
}

live().catch(fail);
