/**
 * `pnpm bench lifeguard`: the Lifeguard paper's counting rules (FP, FP-), the % of SWIM arithmetic,
 * the profiles, the flags, and a small run that is the same for the same seed.
 */
import { describe, expect, it } from 'vitest';
import { memberlistProfile } from '@swim/core';
import { baseConfig, profileConfig } from '../src/profiles.js';
import { LIFEGUARD_DEFAULTS, LIFEGUARD_QUICK, LIFEGUARD_USAGE, parseLifeguardArgs, type LifeguardParams } from '../src/experiments/lifeguard/params.js';
import { LIFEGUARD_PROFILES, lifeguardProfileConfig } from '../src/experiments/lifeguard/profiles.js';
import { goalChecks, lifeguardJson, lifeguardMarkdown, lifeguardSvg, resultFromJson } from '../src/experiments/lifeguard/report.js';
import { classifyFailure, percentOfSwim, PAPER_TABLE_IV } from '../src/experiments/lifeguard/rules.js';
import { profileTotals, runLifeguard, type IntervalRun, type LifeguardResult, type ThresholdRun } from '../src/experiments/lifeguard/run.js';
import { parseArgs, usage } from '../src/cli.js';

describe('FP and FP- (Lifeguard paper §V-E)', () => {
  const anomalous = new Set(['a1', 'a2']);
  it.each([
    // observer, subject, FP, FP-
    ['h1', 'h2', true, true], // both healthy: the worst class, counted in both
    ['a1', 'h2', true, false], // raised at an anomalous member about a healthy one
    ['h1', 'a1', false, false], // a correct detection of an anomalous member
    ['a1', 'a2', false, false], // an anomalous member about another: not false
  ] as const)('%s declares %s dead: FP %s, FP- %s', (observer, subject, fp, fpMinus) => {
    expect(classifyFailure(observer, subject, anomalous)).toEqual({ fp, fpMinus });
  });
});

describe('% of SWIM', () => {
  it("reproduces the paper's own ratios from its counts (Table IV)", () => {
    const swim = PAPER_TABLE_IV.swim!;
    for (const profile of ['lha-probe', 'lha-suspicion', 'buddy', 'lifeguard'] as const) {
      const row = PAPER_TABLE_IV[profile]!;
      expect(percentOfSwim(row.fp, swim.fp)).toBeCloseTo(row.fpPct, 1);
      expect(percentOfSwim(row.fpMinus, swim.fpMinus)).toBeCloseTo(row.fpMinusPct, 1);
    }
  });

  it('is undefined (NaN) without a SWIM count to divide by', () => {
    expect(percentOfSwim(5, 0)).toBeNaN();
    expect(percentOfSwim(0, 0)).toBeNaN();
    expect(percentOfSwim(0, 10)).toBe(0);
    expect(percentOfSwim(Number.NaN, 10)).toBeNaN();
  });

  it('totals sum the Interval runs, pool Threshold latencies, and divide by the swim profile', () => {
    const counts = (fp: number, fpMinus: number, messages: number, bytes: number): IntervalRun => ({ seed: 1, anomalous: [], cycles: 1, simulatedMs: 1, fp, fpMinus, fpVerdicts: 0, fpMinusVerdicts: 0, messages, bytes, wallMs: 0 });
    const threshold = (first: number[]): ThresholdRun => ({
      seed: 1,
      anomalous: [],
      firstDetectMs: first,
      fullDisseminationMs: first,
      recoveredMs: 1,
      fp: 0,
      fpMinus: 0,
      fpVerdicts: 0,
      fpMinusVerdicts: 0,
      messages: 0,
      bytes: 0,
      wallMs: 0,
    });
    const key = { concurrency: 1, anomalyMs: 1, normalMs: 1 };
    const totals = profileTotals(
      ['swim', 'lifeguard'],
      [
        { profile: 'swim', concurrency: 1, anomalyMs: 1, runs: [threshold([12_000, 13_000]), threshold([14_000])] },
        { profile: 'lifeguard', concurrency: 1, anomalyMs: 1, runs: [threshold([12_500])] },
      ],
      [
        { ...key, profile: 'swim', runs: [counts(150, 10, 1000, 5000), counts(50, 10, 1000, 5000)] },
        { ...key, profile: 'lifeguard', runs: [counts(3, 0, 1100, 4900)] },
      ],
    );
    expect(totals.map((t) => [t.profile, t.fp, t.fpMinus, t.messages, t.bytes])).toEqual([
      ['swim', 200, 20, 2000, 10_000],
      ['lifeguard', 3, 0, 1100, 4900],
    ]);
    expect(totals[0]!.firstDetect.p50).toBe(13);
    expect(totals[0]!.detections).toBe(3);
    expect(totals[1]!.percentOfSwim).toEqual({ fp: 1.5, fpMinus: 0, messages: 55, bytes: 49 });
    expect(totals[0]!.percentOfSwim.fp).toBe(100);
  });
});

describe('profiles', () => {
  it('swim is memberlist at α 5 with every Lifeguard component off; each component profile turns one on', () => {
    const lifeguard = memberlistProfile(baseConfig());
    const swim = lifeguardProfileConfig('swim');
    expect(swim).toEqual({ ...lifeguard, awarenessMaxMultiplier: 1, requestNacks: false, suspicionMaxTimeoutMult: 1, buddySystem: false });
    expect(swim.suspicionMult).toBe(5);
    expect(lifeguardProfileConfig('lha-probe')).toEqual({ ...swim, awarenessMaxMultiplier: 8, requestNacks: true });
    expect(lifeguardProfileConfig('lha-suspicion')).toEqual({ ...swim, suspicionMaxTimeoutMult: 6 });
    expect(lifeguardProfileConfig('buddy')).toEqual({ ...swim, buddySystem: true });
    expect(lifeguardProfileConfig('lifeguard')).toEqual(lifeguard);
    expect(lifeguardProfileConfig('default')).toEqual(profileConfig('default'));
  });
});

describe('pnpm bench lifeguard flags', () => {
  it("defaults to the paper's grid: 128 members, 10 runs, every profile, both experiments", () => {
    const { params } = parseLifeguardArgs(['lifeguard']);
    expect(params).toEqual(LIFEGUARD_DEFAULTS);
    expect(params).toMatchObject({ nodes: 128, runs: 10, concurrency: [1, 4, 8, 12, 16, 20, 24, 28, 32], anomalyMs: [128, 512, 2048, 8192, 16384, 32768], normalMs: [1, 4, 16, 64, 256, 1024, 4096, 16384] });
    expect(params.profiles).toEqual(LIFEGUARD_PROFILES);
  });

  it('takes every flag; --quick keeps its own Interval cell unless the grid is given', () => {
    const o = parseLifeguardArgs(['lifeguard', '--profile', 'swim,default', '--phase', 'interval', '--nodes', '64', '--concurrency', '1,8', '--anomaly-ms=2048', '--normal-ms', '16', '--runs', '2', '--seed', '7', '--json', 'x.json', '--out', 'dir']);
    expect(o.params).toMatchObject({ profiles: ['swim', 'default'], phases: ['interval'], nodes: 64, concurrency: [1, 8], anomalyMs: [2048], normalMs: [16], runs: 2, seed: 7 });
    expect(o).toMatchObject({ json: 'x.json', out: 'dir', help: false });
    expect(parseLifeguardArgs(['lifeguard', '--quick']).params).toEqual(LIFEGUARD_QUICK);
    expect(parseLifeguardArgs(['lifeguard', '--quick', '--concurrency', '4']).params.intervalCells).toBeUndefined();
  });

  it('lists every problem at once', () => {
    expect(() =>
      parseLifeguardArgs(['lifeguard', '--profile', 'swim,raft,swim', '--phase', 'both', '--runs', '0', '--concurrency', '1.5,200', '--anomaly-ms', 'x', 'extra']),
    ).toThrow(
      /unexpected argument "extra"; --runs: 0 must be at least 1; --profile: "raft" is not one of swim, lha-probe, lha-suspicion, buddy, lifeguard, default; --profile: a value is listed twice in "swim,raft,swim"; --phase: "both" is not one of threshold, interval; --concurrency: "1.5" is not a whole number; --anomaly-ms: "x" is not a whole number; --concurrency 200: must leave at least two healthy members of 128/,
    );
    expect(() => parseLifeguardArgs(['lifeguard', '--cut', '5'])).toThrow(/cut/);
    expect(() => parseLifeguardArgs(['lifeguard', '--seed', String(2 ** 32)])).toThrow(/--seed: 4294967296 must be at most 4294967295/);
  });

  it('is listed by pnpm bench --help and has its own usage', () => {
    expect(usage()).toContain('lifeguard ');
    expect(parseArgs(['lifeguard']).experiment).toBe('lifeguard');
    for (const flag of ['--profile', '--phase', '--nodes', '--concurrency', '--anomaly-ms', '--normal-ms', '--runs', '--seed', '--quick', '--json', '--out']) expect(LIFEGUARD_USAGE).toContain(flag);
  });
});

describe('a small run', () => {
  const params: LifeguardParams = {
    ...LIFEGUARD_DEFAULTS,
    nodes: 16,
    runs: 1,
    seed: 3,
    profiles: ['swim', 'default'],
    concurrency: [2],
    anomalyMs: [14_000],
    normalMs: [1000],
    quiesceMs: 5000,
    windowMs: 30_000,
  };
  const strip = (result: LifeguardResult) => JSON.parse(JSON.stringify(result, (key, value: unknown) => (key === 'wallMs' ? 0 : value))) as unknown;

  it('is the same for the same seed, and reports every profile and cell', () => {
    const a = runLifeguard(params);
    const b = runLifeguard(params);
    expect(strip(a)).toEqual(strip(b));
    expect(a.totals.map((t) => t.profile)).toEqual(['swim', 'default']);
    expect(a.threshold).toHaveLength(2);
    expect(a.interval).toHaveLength(2);
    // 14 s anomalies outlast the suspicion timeout (5 × log10(16) × 1 s ≈ 6 s): both cut members are detected.
    for (const cell of a.threshold) expect(cell.runs[0]!.firstDetectMs).toHaveLength(2);
    const swim = a.totals[0]!;
    expect(swim.fp).toBeGreaterThan(0); // SWIM's cut members declare healthy ones dead
    expect(swim.messages).toBeGreaterThan(0);
    const c = runLifeguard({ ...params, seed: 4 });
    expect(strip(c)).not.toEqual(strip(a));
  });

  it('reports beside the paper and judges the goals from the totals', () => {
    const result = runLifeguard({ ...params, phases: ['interval'] });
    const info = { command: 'pnpm bench lifeguard', date: '2026-01-01T00:00:00.000Z', node: 'v20', wallMs: 1000 };
    const md = lifeguardMarkdown(result, info);
    expect(md).toContain("beside the paper's Table IV");
    expect(md).toContain('| swim |');
    const json = lifeguardJson(result, info);
    expect(json).toMatchObject({ experiment: 'lifeguard', command: 'pnpm bench lifeguard' });
    expect((json['totals'] as unknown[])[0]).toMatchObject({ profile: 'swim', firstDetect: {}, fullDissemination: {} });
    expect(lifeguardSvg(result)).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
    const goals = goalChecks(result);
    expect(goals.map((g) => g.goal)).toEqual(['FP- = 0 in every cell', 'FP at most 1.53% of SWIM (the paper\'s Lifeguard)', "median first detection within 0.5 s of SWIM's"]);
    expect(goals[2]!.met).toBeUndefined(); // no Threshold runs: latency not measured
    // --render: the JSON alone gives the same report.
    const back = resultFromJson(JSON.parse(JSON.stringify(json)) as Record<string, unknown>);
    expect(lifeguardMarkdown(back, info)).toBe(md);
    expect(lifeguardSvg(back)).toBe(lifeguardSvg(result));
    expect(parseLifeguardArgs(['lifeguard', '--render', 'r/lifeguard.json']).render).toBe('r/lifeguard.json');
  });
});
