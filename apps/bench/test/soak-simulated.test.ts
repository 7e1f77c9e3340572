/**
 * `pnpm bench soak --simulator`, short: 32 members for two simulated hours under the nemesis with
 * our defaults, and the invariants that must hold today. Its flags and report are checked too.
 * About 10 s of CPU; 28 s of wall time on a 2-core machine at load 10.
 *
 * Two hours, not one: invariant 5 fits the heap over the last three quarters, and in the first
 * hour of a process the heap still grows by the bounded caches of the codec filling (the shared
 * parts and decoded updates, @swim/core codec/shared-parts.ts and update-cache.ts, up to 65,536
 * entries each) and by compiled code: at 50 members, 2.6 MiB/h over the last 45 minutes of a
 * one-hour run, about 1.2 MiB/h from 30 minutes to 2 hours (seed 1).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { failureDetectionBoundMs } from '@swim/core';
import type { RunInfo } from '../src/experiments/index.js';
import { FAULT_KINDS, planFaults } from '../src/experiments/soak/simulated/nemesis.js';
import { antiEntropyBoundMs, parseSimulatedSoakArgs, SIMULATED_SOAK_DEFAULTS } from '../src/experiments/soak/simulated/params.js';
import { soakConfig } from '../src/experiments/soak/simulated/profiles.js';
import { simulatedSoakMarkdown, simulatedSoakSummary, simulatedSoakSvg, type SimulatedSoakResult } from '../src/experiments/soak/simulated/report.js';
import { runSoakDay, type SoakRunResult } from '../src/experiments/soak/simulated/run.js';

const SEED = 1;
const MEMBERS = 32;
const HOURS = 2;
const INFO: RunInfo = { command: 'pnpm bench soak --simulator --members 32 --hours 2', date: '2026-12-02T17:00:00.000Z', node: 'v20', wallMs: 1000 };

describe('pnpm bench soak --simulator flags', () => {
  it('defaults to 200 members, 24 hours, a fault every 120 s, both profiles', () => {
    const o = parseSimulatedSoakArgs(['soak', '--simulator']);
    expect(o.params).toEqual(SIMULATED_SOAK_DEFAULTS);
    expect(o.params).toMatchObject({ members: 200, hours: 24, faultEveryMs: 120_000, profiles: ['defaults', 'memberlist'], loss: 0.01 });
    expect(o.out).toBe('apps/bench/results/soak-simulated');
  });
  it('takes every flag and lists every problem at once', () => {
    const o = parseSimulatedSoakArgs(['soak', '--simulator', '--members', '64', '--hours', '2', '--seed', '7', '--fault-every', '30', '--profile', 'memberlist', '--out', 'x']);
    expect(o.params).toMatchObject({ members: 64, hours: 2, seed: 7, faultEveryMs: 30_000, profiles: ['memberlist'] });
    expect(() => parseSimulatedSoakArgs(['soak', '--simulator', '--members', '2', '--hours', 'x', '--profile', 'swim', 'extra'])).toThrow(
      /unexpected argument "extra"; --profile: "swim" is not one of defaults, memberlist, both; --members: 2 must be at least 8; --hours: "x" is not a number/,
    );
  });
});

describe('the nemesis plan', () => {
  it('is seeded, mixes every fault kind, and never holds more than a quarter of the members', () => {
    const params = { members: 200, durationMs: 24 * 3_600_000, firstFaultMs: 60_000, faultEveryMs: 120_000, longDownMs: 500_000, tagsEveryMs: 600_000, broadcastEveryMs: 60_000 };
    const a = planFaults(SEED, params);
    expect(planFaults(SEED, params)).toEqual(a);
    expect(planFaults(SEED + 1, params)).not.toEqual(a);
    const kinds = new Set(a.faults.map((f) => f.kind));
    for (const k of [...FAULT_KINDS, 'tags', 'broadcast']) expect(kinds, `seed ${SEED}: no ${k}`).toContain(k);
    const held = a.faults.filter((f) => f.end !== undefined);
    expect(held.length).toBeGreaterThan(24 * 20);
    for (const f of held) {
      const atOnce = held.filter((g) => g.start <= f.start && f.start < g.end!).reduce((n, g) => n + g.targets.length, 0);
      expect(atOnce, `seed ${SEED}: ${atOnce} members held at ${f.start} ms`).toBeLessThanOrEqual(50);
    }
  });
});

describe(`a short simulated soak: ${MEMBERS} members, ${HOURS} simulated hours, seed ${SEED}`, () => {
  const config = soakConfig('defaults');
  const bound = failureDetectionBoundMs(config, MEMBERS);
  const { faults } = planFaults(SEED, { members: MEMBERS, durationMs: HOURS * 3_600_000, firstFaultMs: 60_000, faultEveryMs: 120_000, longDownMs: bound + 30_000, tagsEveryMs: 600_000, broadcastEveryMs: 60_000 });
  let result: SoakRunResult;
  beforeAll(async () => {
    result = await runSoakDay({ members: MEMBERS, hours: HOURS, seed: SEED, config, faults, loss: 0.01, convergenceBoundMs: antiEntropyBoundMs(config, MEMBERS), sampleEveryMs: 300_000 });
  }, 120_000);
  const inv = (id: number) => result.check.invariants.find((i) => i.id === id)!;
  const why = (id: number) => `seed ${SEED}: ${inv(id).firstViolation}`;

  it('injected faults and recorded what the members saw', () => {
    expect(result.faultsByKind['crash']).toBeGreaterThan(0);
    expect(result.faultsByKind['partition']).toBeGreaterThan(0);
    expect(result.observationsByKind.dead).toBeGreaterThan(0);
    expect(result.hourly).toHaveLength(HOURS * 12);
  });

  it('1: every crash is seen dead by every running member within the detection bound', () => {
    expect(inv(1).checked, `seed ${SEED}: no crash stayed down past the bound`).toBeGreaterThan(0);
    expect(inv(1).violations, why(1)).toBe(0);
  });

  it('2: no false death verdicts', () => {
    expect(inv(2).checked, `seed ${SEED}: no death verdicts at all`).toBeGreaterThan(0);
    expect(inv(2).violations, why(2)).toBe(0);
  });

  it('3: every running member sees every other alive within one push-pull interval (plus a probe interval) of each heal, restart and rejoin', () => {
    expect(inv(3).checked, `seed ${SEED}: nothing to converge after`).toBeGreaterThan(0);
    expect(inv(3).violations, why(3)).toBe(0);
  });

  it('4: no contained exceptions in any member', () => {
    expect(inv(4).violations, why(4)).toBe(0);
  });

  it('5: the heap does not grow over the last three quarters', () => {
    expect(inv(5).checked, `seed ${SEED}: no heap samples`).toBe(1);
    expect(inv(5).violations, why(5)).toBe(0);
  });

  it('6: every event sequence is valid', () => {
    expect(inv(6).checked).toBe(result.observations);
    expect(inv(6).violations, why(6)).toBe(0);
  });

  it('reports what it measured', () => {
    const soak: SimulatedSoakResult = {
      experiment: 'soak-simulated',
      params: { ...SIMULATED_SOAK_DEFAULTS, members: MEMBERS, hours: HOURS, profiles: ['defaults'] },
      codeVersion: 'test',
      longDownMs: bound + 30_000,
      skippedFaults: 0,
      runs: [{ profile: 'defaults', config, result }],
    };
    const md = simulatedSoakMarkdown(soak, INFO);
    expect(md).toContain(`| defaults | ${(result.simWallMs / 1000).toFixed(1)} + `);
    expect(md).toContain('| 6 | event sequences valid per (observer, subject) |');
    expect(simulatedSoakSummary(soak)).toContain(result.observations.toLocaleString('en-US'));
    expect(simulatedSoakSvg(soak)).toMatch(/^<svg/);
  });
});
