/**
 * The attack suite (issue 10) against real `swim agent` processes and a real gateway process on
 * loopback, at the small sizes of QUICK: each scenario's checks are the "Done when". The
 * full sizes run with `pnpm bench attack`.
 *
 * Two lanes run side by side to keep the wall time down: the floods (heavy on memory and CPU) one
 * after another in one, the rest in the other. Each process's stall is its own CPU-bound time, so
 * the other lane's load does not count against it.
 */
import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { killAll } from '../src/experiments/attack/processes.js';
import { scenarioMarkdown } from '../src/experiments/attack/report.js';
import type { ScenarioName, ScenarioResult } from '../src/experiments/attack/result.js';
import { QUICK } from '../src/experiments/attack/sizes.js';
import { RUNNERS } from '../src/experiments/attack/suite.js';

afterAll(killAll);

/** Every check of the scenario, each its own (soft) assertion naming what was measured; the figures when one fails. */
function expectChecks(expect: ExpectStatic, result: ScenarioResult): void {
  if (result.checks.some((c) => !c.pass)) console.log(scenarioMarkdown(result));
  for (const c of result.checks) expect.soft(c.pass, `${c.what}: ${c.value} (limit ${c.limit})`).toBe(true);
}

const LANES: ReadonlyArray<readonly ScenarioName[]> = [
  ['flood', 'streams', 'gateway'],
  ['incarnation', 'hijack', 'amplification', 'control'],
];

/** Declared alternately from each lane, so that whatever vitest starts first includes every predecessor. */
function interleaved(): Array<{ scenario: ScenarioName; after: ScenarioName | undefined }> {
  const order: Array<{ scenario: ScenarioName; after: ScenarioName | undefined }> = [];
  for (let i = 0; i < Math.max(...LANES.map((l) => l.length)); i++) {
    for (const lane of LANES) if (lane[i] !== undefined) order.push({ scenario: lane[i]!, after: lane[i - 1] });
  }
  return order;
}

const finished = new Map<ScenarioName, { promise: Promise<void>; resolve: () => void }>();
for (const lane of LANES) {
  for (const scenario of lane) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    finished.set(scenario, { promise, resolve });
  }
}

// Linux only: memory and the main thread's CPU time come from /proc, and the attacker binds
// 127.0.0.66 and 127.0.0.67 (the whole of 127.0.0.0/8 is local there, not on macOS).
describe.skipIf(process.platform !== 'linux').concurrent('attack suite: a stranger on 127.0.0.1 against real processes', () => {
  for (const { scenario, after } of interleaved()) {
    // Concurrent tests assert through their own context's expect.
    it(scenario, { timeout: 300_000 }, async ({ expect }) => {
      if (after !== undefined) await finished.get(after)!.promise;
      try {
        expectChecks(expect, await RUNNERS[scenario](QUICK));
      } finally {
        finished.get(scenario)!.resolve();
      }
    });
  }
});
