/**
 * The attack suite (issue 10) against real `swim agent` processes and a real gateway process on
 * loopback, at the small sizes of QUICK: each scenario's checks are the "Done when". The
 * full sizes run with `pnpm bench attack`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from '../src/experiments/attack/processes.js';
import { scenarioMarkdown } from '../src/experiments/attack/report.js';
import { SCENARIOS, type ScenarioResult } from '../src/experiments/attack/result.js';
import { QUICK } from '../src/experiments/attack/sizes.js';
import { RUNNERS } from '../src/experiments/attack/suite.js';

afterAll(killAll);

/** Every check of the scenario, each its own (soft) assertion naming what was measured; the figures when one fails. */
function expectChecks(result: ScenarioResult): void {
  if (result.checks.some((c) => !c.pass)) console.log(scenarioMarkdown(result));
  for (const c of result.checks) expect.soft(c.pass, `${c.what}: ${c.value} (limit ${c.limit})`).toBe(true);
}

describe('attack suite: a stranger on 127.0.0.1 against real processes', () => {
  for (const scenario of SCENARIOS) {
    it(scenario, { timeout: 180_000 }, async () => {
      expectChecks(await RUNNERS[scenario](QUICK));
    });
  }
});
