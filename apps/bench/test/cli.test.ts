import { describe, expect, it } from 'vitest';
import { CliError, parseArgs, usage } from '../src/cli.js';
import { resolveParams } from '../src/params.js';
import type { BlackoutParams } from '../src/experiments/blackout.js';
import type { CrashParams } from '../src/experiments/crash.js';
import type { SpeedParams } from '../src/experiments/speed.js';

function error(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return (e as Error).message;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('command line', () => {
  it('parses the blackout example of the issue', () => {
    const o = parseArgs(['blackout', '--cut', '1,8,32', '--outage', '16,24,33,50,65,90,130', '--nodes', '128', '--runs', '3', '--seed', '1', '--profile', 'memberlist,default']);
    expect(o).toMatchObject({
      experiment: 'blackout',
      cut: [1, 8, 32],
      outage: [16, 24, 33, 50, 65, 90, 130],
      nodes: [128],
      runs: 3,
      seed: 1,
      profiles: ['memberlist', 'default'],
      quick: false,
    });
  });

  it('--encrypt applies to blackout only and reaches its params', () => {
    expect((resolveParams('blackout', parseArgs(['blackout', '--encrypt'])) as BlackoutParams).encrypt).toBe(true);
    expect((resolveParams('blackout', parseArgs(['blackout'])) as BlackoutParams).encrypt).toBeUndefined();
    expect(error(['crash', '--encrypt'])).toBe('--encrypt does not apply to crash (it applies to: blackout)');
    expect(error(['blackout', '--encrypt=yes'])).toBe('--encrypt takes no value');
  });

  it('accepts --flag=value, decimals where they make sense, and a lone -- from pnpm', () => {
    const o = parseArgs(['loss', '--', '--loss=0.3,0.4', '--minutes=2.5', '--json', 'out/loss.json']);
    expect(o).toMatchObject({ experiment: 'loss', loss: [0.3, 0.4], minutes: 2.5, json: 'out/loss.json' });
    expect(parseArgs(['all', '--quick'])).toMatchObject({ experiment: 'all', quick: true });
    expect(parseArgs(['--help']).help).toBe(true);
  });

  it.each([
    [[], 'no experiment given'],
    [['blackot'], 'unknown experiment "blackot"'],
    [['blackout', 'crash'], 'unexpected argument "crash"'],
    [['blackout', '--cuts', '8'], 'unknown flag --cuts (did you mean --cut?)'],
    [['blackout', '--frobnicate'], 'unknown flag --frobnicate; see --help'],
    [['blackout', '--cut'], '--cut needs a value'],
    [['blackout', '--cut', '--outage', '16'], '--cut needs a value'],
    [['blackout', '--cut', '8,,32'], 'empty item'],
    [['blackout', '--cut', 'eight'], '"eight" is not a number'],
    [['blackout', '--cut', '2.5'], '"2.5" is not a whole number'],
    [['blackout', '--cut', '0'], 'must be at least 1'],
    [['blackout', '--cut', '8,8'], 'listed twice'],
    [['blackout', '--outage', '0'], 'must be greater than 0'],
    [['blackout', '--outage', '16s'], '"16s" is not a number'],
    [['blackout', '--runs', '1,2'], '--runs takes one value'],
    [['blackout', '--runs', '3', '--runs', '4'], '--runs given twice'],
    [['blackout', '--nodes', '2'], 'must be at least 3'],
    [['blackout', '--nodes', '16', '--cut', '16'], 'must leave at least one healthy member'],
    [['blackout', '--profile', 'memberlist,lifeguard'], 'unknown profile "lifeguard"'],
    [['loss', '--loss', '1'], 'must be less than 1'],
    [['crash', '--nodes', '10', '--crashes', '9'], 'at least two survivors'],
    [['crash', '--outage', '16'], '--outage does not apply to crash'],
    [['core', '--nodes', '128'], '--nodes does not apply to core'],
    [['all', '--quick=yes'], '--quick takes no value'],
  ])('rejects %j: %s', (argv, message) => {
    expect(error(argv)).toContain(message);
  });

  it('lists every experiment and flag in the usage text', () => {
    const text = usage();
    for (const word of ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'core', 'all', '--nodes', '--runs', '--seed', '--profile', '--cut', '--outage', '--loss', '--minutes', '--json', '--out', '--quick']) {
      expect(text).toContain(word);
    }
  });
});

describe('parameters', () => {
  it('uses the issue defaults', () => {
    const p = resolveParams('blackout', parseArgs(['blackout'])) as BlackoutParams;
    expect(p).toMatchObject({ nodes: [128], cuts: [1, 8, 32], outages: [16, 24, 33, 50, 65, 90, 130], runs: 3, seed: 1 });
    expect(p.profiles).toEqual(['memberlist', 'grace', 'health-at-creation', 'health-at-expiry', 'default']);
    expect(p.cells).toBeUndefined();
    expect(resolveParams('speed', parseArgs(['speed']))).toMatchObject({ nodes: [128, 1000], windowS: undefined, stormWallLimitS: 900, skipStorms: false });
  });

  it('speed takes --storm-wall-limit and --skip-storms, and refuses them elsewhere or out of range', () => {
    expect(resolveParams('speed', parseArgs(['speed', '--storm-wall-limit', '60', '--skip-storms']))).toMatchObject({ stormWallLimitS: 60, skipStorms: true });
    expect(() => parseArgs(['crash', '--skip-storms'])).toThrow(/--skip-storms/);
    expect(() => parseArgs(['speed', '--storm-wall-limit', '0'])).toThrow(/--storm-wall-limit/);
  });

  it('flags override the quick subset; explicit --cut/--outage replace its cell list', () => {
    const quick = resolveParams('blackout', parseArgs(['blackout', '--quick'])) as BlackoutParams;
    expect(quick.cells).toEqual([
      { cut: 32, outage: 24 },
      { cut: 1, outage: 16 },
    ]);
    const custom = resolveParams('blackout', parseArgs(['blackout', '--quick', '--cut', '8'])) as BlackoutParams;
    expect(custom.cells).toBeUndefined();
    expect(custom.cuts).toEqual([8]);
    const crash = resolveParams('crash', parseArgs(['crash', '--quick', '--crashes', '5', '--seed', '9'])) as CrashParams;
    expect(crash).toMatchObject({ crashes: 5, seed: 9, runs: 1 });
  });

  it('under `all`, blackout flags do not leak into lifeguard-off or speed', () => {
    const o = parseArgs(['all', '--quick', '--cut', '8', '--profile', 'grace']);
    expect(resolveParams('lifeguard-off', o, true)).toMatchObject({ cuts: [1], outages: [16], profiles: ['lifeguard-off', 'memberlist', 'default'] });
    expect((resolveParams('speed', o, true) as SpeedParams).profiles).toEqual(['default']);
    expect(resolveParams('blackout', o, true)).toMatchObject({ cuts: [8], profiles: ['grace'] });
  });
});
