/**
 * `pnpm bench restart`: its flags and grid, the restart schedules, the stale-pair bookkeeping, and
 * the report read from what was measured.
 */
import { describe, expect, it } from 'vitest';
import { usage } from '../src/cli.js';
import type { RunInfo } from '../src/experiments/index.js';
import { parseRestartArgs, RESTART_DEFAULTS, RESTART_QUICK, RESTART_USAGE, restartCells } from '../src/experiments/restart/params.js';
import { restartConfig, RESTART_PROFILES } from '../src/experiments/restart/profiles.js';
import { restartMarkdown, restartSummary, type RestartResult } from '../src/experiments/restart/report.js';
import { runRestart, type RestartRunResult } from '../src/experiments/restart/run.js';
import { planRestarts, SCHEDULE_DEFAULTS } from '../src/experiments/restart/schedule.js';
import { StalePairs } from '../src/experiments/restart/stale-pairs.js';
import type { SimEvent } from '@swim/transport-memory';

const INFO: RunInfo = { command: 'pnpm bench restart --quick', date: '2026-12-02T14:00:00.000Z', node: 'v20', wallMs: 1000 };

describe('pnpm bench restart flags', () => {
  it('defaults to 48, 128 and 1,000 members, every scenario and profile; --quick to 48', () => {
    expect(parseRestartArgs(['restart']).params).toEqual(RESTART_DEFAULTS);
    expect(RESTART_DEFAULTS).toMatchObject({ nodes: [48, 128, 1000], runs: 3, largeRuns: 2, scenarios: ['rolling', 'wave', 'wave-long'] });
    expect(parseRestartArgs(['restart', '--quick']).params).toEqual(RESTART_QUICK);
  });

  it('takes every flag and lists every problem at once', () => {
    const o = parseRestartArgs(['restart', '--nodes', '16,32', '--scenario', 'wave', '--profile', 'default,memberlist', '--runs', '2', '--large-runs', '1', '--seed', '9', '--limit-s', '60', '--out', 'dir']);
    expect(o.params).toMatchObject({ nodes: [16, 32], scenarios: ['wave'], profiles: ['default', 'memberlist'], runs: 2, largeRuns: 1, seed: 9, limitMs: 60_000 });
    expect(o.out).toBe('dir');
    expect(() => parseRestartArgs(['restart', '--nodes', '2', '--scenario', 'storm', '--profile', 'swim', '--runs', 'x', 'extra'])).toThrow(
      /unexpected argument "extra"; --nodes: 2 must be at least 3; --scenario: "storm" is not one of rolling, wave, wave-long; --profile: "swim" is not one of .*; --runs: "x" is not a number/,
    );
  });

  it('runs only the main profiles and two scenarios above 128 members', () => {
    const cells = restartCells(RESTART_DEFAULTS);
    const large = cells.filter((c) => c.nodes === 1000);
    expect(large.map((c) => `${c.scenario}/${c.profile}/${c.runs}`)).toEqual(['rolling/default/2', 'rolling/memberlist/2', 'wave/default/2', 'wave/memberlist/2']);
    expect(cells.filter((c) => c.nodes === 128)).toHaveLength(3 * RESTART_PROFILES.length);
  });

  it('is listed by pnpm bench --help and has its own usage', () => {
    expect(usage()).toMatch(/restart +rolling restarts and whole-cluster restart waves/);
    expect(RESTART_USAGE).toMatch(/--large-runs/);
  });

  it('memberlist keeps every restart rule off, our defaults the two direct answers on', () => {
    expect(restartConfig('memberlist')).toMatchObject({ answerStaleAlive: false, answerAccusedPingers: false, regossipStaleAccusation: false, relayUnknownAccusations: false });
    expect(restartConfig('default')).toMatchObject({ answerStaleAlive: true, answerAccusedPingers: true, regossipStaleAccusation: false, relayUnknownAccusations: false });
    expect(restartConfig('memberlist+pr345')).toMatchObject({ answerStaleAlive: false, regossipStaleAccusation: true, relayUnknownAccusations: true });
  });
});

describe('restart schedules', () => {
  it('restart every member once, deterministically per seed', () => {
    for (const scenario of ['rolling', 'wave', 'wave-long'] as const) {
      const plan = planRestarts(scenario, 50, 3, SCHEDULE_DEFAULTS);
      expect(new Set(plan.map((p) => p.member)).size).toBe(50);
      expect(planRestarts(scenario, 50, 3, SCHEDULE_DEFAULTS)).toEqual(plan);
      expect(planRestarts(scenario, 50, 4, SCHEDULE_DEFAULTS)).not.toEqual(plan);
      for (const p of plan) expect(p.restartAtMs).toBeGreaterThan(p.crashAtMs);
    }
  });

  it('rolling: one member down at a time; wave: all crash within the spread, downs within their bounds', () => {
    const rolling = planRestarts('rolling', 40, 1, SCHEDULE_DEFAULTS);
    for (let i = 1; i < rolling.length; i++) expect(rolling[i]!.crashAtMs).toBe(rolling[i - 1]!.restartAtMs + SCHEDULE_DEFAULTS.rollingGapMs);
    const wave = planRestarts('wave-long', 40, 1, SCHEDULE_DEFAULTS);
    for (const p of wave) {
      expect(p.crashAtMs).toBeLessThan(SCHEDULE_DEFAULTS.longWaveSpreadMs);
      expect(p.restartAtMs - p.crashAtMs).toBeGreaterThanOrEqual(SCHEDULE_DEFAULTS.longWaveDownMs[0]);
      expect(p.restartAtMs - p.crashAtMs).toBeLessThanOrEqual(SCHEDULE_DEFAULTS.longWaveDownMs[1]);
    }
  });
});

describe('StalePairs', () => {
  const event = (kind: SimEvent['kind'], at: number, incarnation = 1): SimEvent => ({ at, observer: '', kind, subject: '', incarnation, cause: undefined });

  it('counts a running member held dead by a running one, until either learns or goes down', () => {
    const pairs = new StalePairs(3);
    pairs.onEvent(0, 1, event('dead', 1_000));
    expect(pairs.openCount).toBe(1);
    pairs.onEvent(0, 1, event('join', 4_000, 2));
    expect(pairs.pairMs(10_000)).toBe(3_000);
    pairs.onEvent(2, 1, event('left', 5_000));
    pairs.crashed(1, 6_000); // "left" is right again while it is down
    expect(pairs.pairMs(10_000)).toBe(4_000);
    pairs.restarted(1, 8_000); // back, and 2 still holds it left
    expect(pairs.openCount).toBe(1);
    expect(pairs.longestMs(20_000)).toBe(12_000);
    expect(pairs.longestPair(20_000)).toEqual([2, 1, 8_000]);
  });

  it('a restarted observer forgets what its old process held', () => {
    const pairs = new StalePairs(2);
    pairs.onEvent(0, 1, event('dead', 0));
    pairs.crashed(0, 1_000);
    pairs.restarted(0, 2_000);
    expect(pairs.openCount).toBe(0);
    expect(pairs.pairMs(5_000)).toBe(1_000);
  });

  it('counts members held down at or above their own incarnation only when the table still says so', () => {
    const pairs = new StalePairs(3);
    pairs.onEvent(0, 1, event('dead', 0, 3));
    pairs.onEvent(0, 2, event('dead', 0, 1));
    const own = (i: number) => (i === 1 ? 1 : 2);
    expect(pairs.heldDownAtOrAbove(own, () => 3)).toBe(1); // 1 is held at 3 >= 1; 2 at 1 < 2
    expect(pairs.heldDownAtOrAbove(own, () => undefined)).toBe(0); // reaped since
  });
});

describe('pnpm bench restart, a small run and its report', () => {
  it('measures a 16-member wave, and the report quotes what was measured', () => {
    const run = (profile: 'default' | 'memberlist'): RestartRunResult =>
      runRestart({ scenario: 'wave-long', nodes: 16, seed: 1, config: restartConfig(profile), schedule: SCHEDULE_DEFAULTS, limitMs: 120_000, snapshot: false });
    const ours = run('default');
    expect(ours.convergedAfterMs, 'seed 1').not.toBeNull();
    expect(ours.spanMs).toBeGreaterThan(10_000);
    const result: RestartResult = {
      experiment: 'restart',
      params: { ...RESTART_QUICK, nodes: [16], scenarios: ['wave-long'], profiles: ['default', 'memberlist'], limitMs: 120_000 },
      cells: [
        { nodes: 16, scenario: 'wave-long', profile: 'default', runs: 1, results: [ours] },
        { nodes: 16, scenario: 'wave-long', profile: 'memberlist', runs: 1, results: [{ ...ours, convergedAfterMs: null }] },
      ],
    };
    const markdown = restartMarkdown(result, INFO);
    expect(markdown).toContain(`| wave-long | 16 | default | 1 | ${(ours.convergedAfterMs! / 1000).toFixed(1)} | yes |`);
    expect(markdown).toContain('| wave-long | 16 | memberlist | 1 | > 120 | no |');
    expect(restartSummary(result)).toMatch(/Our defaults: every run converged within 30 s/);
  });
});
