import { describe, expect, it } from 'vitest';
import { runCrash } from '../src/experiments/crash.js';
import { LIFEGUARD_OFF_QUICK, runLifeguardOff } from '../src/experiments/lifeguard-off.js';
import { runSpeed } from '../src/experiments/speed.js';
import { toMarkdown } from '../src/report/markdown.js';
import { toSvg } from '../src/report/svg.js';
import { checkXml } from './xml.js';

/** The rest of the quick subset, through the experiment functions, with the shape asserted. */
describe('quick subset', () => {
  it('lifeguard-off: one member cut off 16 s kills healthy members only with Lifeguard off', () => {
    const result = runLifeguardOff(LIFEGUARD_OFF_QUICK);
    const mean = (p: string) => result.cells.find((c) => c.profile === p)!.meanFalseDeaths;
    expect(mean('lifeguard-off')).toBeGreaterThan(0);
    expect(mean('memberlist')).toBe(0);
    expect(mean('default')).toBe(0);
    expect(checkXml(toSvg(result)).problems).toEqual([]);
  }, 120_000);

  it('crash: every crash is detected and seen dead by every survivor', () => {
    const result = runCrash({ nodes: [128], crashes: 3, profiles: ['default'], runs: 1, seed: 1 });
    const [cell] = result.cells;
    expect(cell!.undetected).toBe(0);
    expect(cell!.firstDead.count).toBe(3);
    // Lifeguard's minimum suspicion timeout at 128 members is 10.5 s; detection adds the probe.
    expect(cell!.firstDead.median).toBeGreaterThan(10);
    expect(cell!.firstDead.max).toBeLessThan(30);
    expect(cell!.runs[0]!.falseDeaths).toBe(0);
    expect(checkXml(toSvg(result)).problems).toEqual([]);
  }, 120_000);

  it('speed: reports simulated seconds per wall second and packets per simulated second', async () => {
    const result = await runSpeed({ nodes: [32], windowS: undefined, profiles: ['default'], seed: 1, stormWallLimitS: 120, skipStorms: false });
    const [cell] = result.cells;
    expect(cell!.simSecondsPerWallSecond).toBeGreaterThan(0);
    // The window is one push-pull interval at 32 members (30 s: at or below memberlist's
    // pushPullScaleThreshold), each member's push-pull period: each member pushed once in it.
    expect(cell!.windowS).toBe(30);
    expect(cell!.windowStartMs).toBeGreaterThanOrEqual(30_000);
    expect(cell!.pushPulls).toBeGreaterThanOrEqual(28);
    expect(cell!.pushPulls).toBeLessThanOrEqual(36);
    // Every member probes once a second: at least a ping and an ack each.
    expect(cell!.packetsPerSimSecond).toBeGreaterThanOrEqual(2 * 32 * 0.9);
    expect(cell!.target).toBe(100);
    // Both join storms converged, each measured in simulated, wall and CPU time.
    expect(cell!.joinStorms.map((s) => s.seeds)).toEqual([1, 3]);
    for (const storm of cell!.joinStorms) {
      expect(storm.convergedSimMs).toBeGreaterThan(0);
      expect(storm.ranSimMs).toBe(storm.convergedSimMs);
      expect(storm.wallMs).toBeGreaterThan(0);
      expect(storm.cpuMs).toBeGreaterThan(0);
    }
    expect(cell!.packetsPerMemberPerSecond).toBeCloseTo(cell!.packetsPerSimSecond / 32, 9);
    expect(cell!.heapBytesPerEntry).toBeCloseTo(cell!.heapBytes / (32 * 32), 9);
    expect(cell!.rssBytes).toBeGreaterThan(cell!.heapBytes / 2);
    // The window saw a quiet cluster: a ping and an ack per member per second.
    expect(cell!.packetsPerMemberPerSecond).toBeLessThan(2.2);
    const info = { command: 'pnpm bench speed --quick', date: '2025-01-01T00:00:00.000Z', node: 'v20.20.2', wallMs: 1000 };
    expect(toMarkdown(result, info)).toContain('## Join storms and memory');
    expect(checkXml(toSvg(result)).problems).toEqual([]);
  }, 60_000);

  it('speed: --skip-storms measures the steady state only, and the report says the storms were not run', async () => {
    const result = await runSpeed({ nodes: [16], windowS: 5, profiles: ['default'], seed: 1, stormWallLimitS: 120, skipStorms: true });
    expect(result.cells[0]!.joinStorms).toEqual([]);
    expect(result.cells[0]!.simSecondsPerWallSecond).toBeGreaterThan(0);
    const info = { command: 'pnpm bench speed --skip-storms', date: '2025-01-01T00:00:00.000Z', node: 'v20.20.2', wallMs: 1000 };
    expect(toMarkdown(result, info)).toMatch(/\| 16 \| default \| not run \| not run \|/);
  }, 60_000);

  it('speed: a join storm that outlasts its wall-time limit is reported as not converged, with how far it ran', async () => {
    const { joinStorm } = await import('../src/experiments/join-storm.js');
    const { profileConfig } = await import('../src/profiles.js');
    const { stormText } = await import('../src/experiments/speed.js');
    const storm = joinStorm({ seed: 1, nodes: 300, seeds: 1, config: profileConfig('default'), wallLimitMs: 100 }).timing;
    expect(storm.convergedSimMs).toBeUndefined();
    expect(storm.ranSimMs).toBeGreaterThan(0);
    expect(stormText(storm)).toMatch(/^not converged after \d+\.\d s simulated, /);
  }, 60_000);
});
