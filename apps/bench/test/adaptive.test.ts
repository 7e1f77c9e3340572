import { createRng } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { parseArgs, usage } from '../src/cli.js';
import { comparisons } from '../src/experiments/adaptive-report.js';
import { ADAPTIVE_DEFAULTS, ADAPTIVE_QUICK, adaptiveProfileConfig, runAdaptive, wanLatency, type AdaptiveParams } from '../src/experiments/adaptive.js';
import { resolveParams } from '../src/params.js';
import { toJson } from '../src/report/json.js';
import { toMarkdown } from '../src/report/markdown.js';
import { toSvg } from '../src/report/svg.js';
import { quantile } from '../src/stats.js';
import { checkXml } from './xml.js';

describe('adaptive experiment: command line', () => {
  it('takes its own profiles and networks, and the shared flags', () => {
    const o = parseArgs(['adaptive', '--profile', 'fixed-500,adaptive', '--network', 'wan', '--nodes', '32', '--runs', '2', '--minutes', '5', '--crashes', '3']);
    expect(o).toMatchObject({ experiment: 'adaptive', adaptiveProfiles: ['fixed-500', 'adaptive'], networks: ['wan'], nodes: [32], runs: 2, minutes: 5, crashes: 3 });
    expect(o.profiles).toBeUndefined();
    expect(resolveParams('adaptive', o)).toMatchObject({ profiles: ['fixed-500', 'adaptive'], networks: ['wan'], nodes: [32], runs: 2, minutes: 5, crashes: 3 });
    expect(resolveParams('adaptive', parseArgs(['adaptive']))).toEqual(ADAPTIVE_DEFAULTS);
    expect(resolveParams('adaptive', parseArgs(['adaptive', '--quick']))).toEqual(ADAPTIVE_QUICK);
  });

  it.each([
    [['adaptive', '--profile', 'default'], 'unknown profile "default"; one of: fixed-500, adaptive, wan, wan-adaptive'],
    [['crash', '--profile', 'wan-adaptive'], 'unknown profile "wan-adaptive"'],
    [['adaptive', '--network', 'moon'], 'unknown network "moon"'],
    [['adaptive', '--network', 'wan,wan'], 'a network is listed twice'],
    [['crash', '--network', 'wan'], '--network does not apply to crash'],
    [['adaptive', '--crashes', '63'], 'at least two survivors'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('is in the usage text', () => {
    const text = usage();
    for (const word of ['adaptive', '--network', 'wan-loss', 'fixed-500', 'wan-adaptive']) expect(text).toContain(word);
  });

  it('under `all`, adaptive keeps its own profiles, minutes and crashes', () => {
    const o = parseArgs(['all', '--quick', '--profile', 'grace', '--minutes', '1', '--crashes', '5']);
    expect(resolveParams('adaptive', o, true)).toMatchObject({ profiles: ADAPTIVE_QUICK.profiles, minutes: ADAPTIVE_QUICK.minutes, crashes: ADAPTIVE_QUICK.crashes });
  });
});

describe('adaptive experiment: model and run', () => {
  it('the WAN-like latency gives an RTT median of 100-200 ms with a heavy tail', () => {
    const model = wanLatency();
    const rng = createRng(7);
    const rtts = Array.from({ length: 50_000 }, () => model(rng) + model(rng));
    const median = quantile(rtts, 0.5);
    expect(median).toBeGreaterThan(100);
    expect(median).toBeLessThan(200);
    // Far heavier than the log-normal body alone (whose RTT 99.9th percentile is about 400 ms).
    expect(quantile(rtts, 0.999)).toBeGreaterThan(700);
  });

  it('profiles: the presets as shipped, and each with the adaptive timeout', () => {
    expect(adaptiveProfileConfig('fixed-500')).toMatchObject({ probeTimeoutMs: 500, probeTimeoutMode: 'fixed' });
    expect(adaptiveProfileConfig('adaptive')).toMatchObject({ probeTimeoutMs: 500, probeTimeoutMode: 'adaptive', adaptiveTimeoutCeilingMs: 500 });
    expect(adaptiveProfileConfig('wan')).toMatchObject({ probeTimeoutMs: 3000, probeIntervalMs: 5000, probeTimeoutMode: 'fixed' });
    expect(adaptiveProfileConfig('wan-adaptive')).toMatchObject({ probeTimeoutMode: 'adaptive', adaptiveTimeoutCeilingMs: 3000 });
  });

  it('a small run: adaptive waits are learned and used, crashes are detected, the report renders', () => {
    const params: AdaptiveParams = { nodes: [16], networks: ['wan'], profiles: ['fixed-500', 'adaptive'], warmupPasses: 6, minutes: 3, crashes: 2, runs: 1, seed: 3 };
    const result = runAdaptive(params);
    const [fixed, adaptive] = result.cells;
    expect(fixed!.meanTimeoutMs).toBe(500);
    expect(fixed!.runs[0]!.adaptiveProbes).toBe(0);
    expect(adaptive!.runs[0]!.adaptiveProbes).toBeGreaterThan(0.9 * adaptive!.runs[0]!.probes);
    expect(adaptive!.meanTimeoutMs).toBeGreaterThan(200);
    expect(adaptive!.meanTimeoutMs).toBeLessThan(500);
    // A shorter wait sends more probes to the indirect phase.
    expect(adaptive!.indirectShare).toBeGreaterThan(fixed!.indirectShare);
    for (const cell of result.cells) {
      expect(cell.undetected).toBe(0);
      expect(cell.firstDead.count).toBe(2);
      expect(cell.runs[0]!.stalls).toBeGreaterThan(0);
      expect(cell.runs[0]!.rttMedianMs).toBeGreaterThan(100);
    }
    const [pair] = comparisons(result);
    expect(pair).toMatchObject({ network: 'wan', preset: 'lan' });

    const info = { command: 'pnpm bench adaptive', date: '2025-01-01T00:00:00.000Z', node: 'v20.20.2', wallMs: 1000 };
    const md = toMarkdown(result, info);
    expect(md).toContain('# Adaptive probe timeouts');
    expect(md).toContain('| wan | fixed-500 |');
    expect(md).toContain('| setting | fixed-500 | adaptive |');
    expect(md).toContain(pair!.verdict);
    const json = toJson(result, info);
    expect(json).toMatchObject({ experiment: 'adaptive', params, comparisons: [{ fixed: 'fixed-500', adaptive: 'adaptive' }] });
    expect(checkXml(toSvg(result)).problems).toEqual([]);
  }, 60_000);
});
