import { beforeAll, describe, expect, it } from 'vitest';
import { encryptionOverhead } from '@swim/encryption';
import { blackoutRun, encryptedBudget, runBlackout, type BlackoutResult } from '../src/experiments/blackout.js';
import { convergedCluster } from '../src/experiments/setup.js';
import { profileConfig } from '../src/profiles.js';
import { toJson } from '../src/report/json.js';
import { toMarkdown } from '../src/report/markdown.js';
import { toSvg } from '../src/report/svg.js';
import { checkXml } from './xml.js';

/**
 * The shape the corrections study found, on part of the quick subset: with memberlist's behaviour,
 * 32 of 128 members cut off together for 24 s make healthy members declare healthy members dead,
 * through confirmations that arrive overdue; with both corrections (the default), the same seeds
 * give no false death at all.
 */
describe('blackout: 32 of 128 cut off for 24 s', () => {
  let result: BlackoutResult;
  const cell = (profile: string) => result.cells.find((c) => c.profile === profile)!;

  beforeAll(() => {
    result = runBlackout({ nodes: [128], cuts: [32], outages: [24], profiles: ['memberlist', 'default'], runs: 3, seed: 1 });
  }, 180_000);

  it('runs both profiles on the same seeds and cuts off the same members', () => {
    expect(cell('memberlist').runs.map((r) => r.seed)).toEqual([1, 2, 3]);
    expect(cell('default').runs.map((r) => r.seed)).toEqual([1, 2, 3]);
    expect(cell('default').runs.map((r) => r.cutMembers)).toEqual(cell('memberlist').runs.map((r) => r.cutMembers));
    for (const run of cell('memberlist').runs) {
      expect(new Set(run.cutMembers).size).toBe(32);
      expect(run.deathsBeforeCut).toBe(0);
    }
  });

  it('memberlist: healthy members declare healthy members dead', () => {
    const memberlist = cell('memberlist');
    expect(memberlist.meanFalseDeaths).toBeGreaterThan(0);
    // Seeds 1-3 give 49, 45 and 34 today; about 1 seed in 10 gives none (seed 4), so allow one miss
    // rather than have an unrelated change of random draws flip this test.
    expect(memberlist.runs.filter((r) => r.falseDeaths > 0).length).toBeGreaterThanOrEqual(2);
  });

  it('memberlist: through overdue verdicts of cut-off members, each with a confirmation', () => {
    const runs = cell('memberlist').runs;
    const overdue = runs.reduce((s, r) => s + r.overdueVerdicts, 0);
    expect(overdue).toBeGreaterThan(0);
    expect(runs.reduce((s, r) => s + r.overdueConfirmed, 0)).toBe(overdue);
  });

  it('default: no false death and no overdue verdict for the same seeds', () => {
    const runs = cell('default').runs;
    expect(runs.map((r) => r.falseDeaths)).toEqual([0, 0, 0]);
    expect(runs.map((r) => r.overdueVerdicts)).toEqual([0, 0, 0]);
    expect(cell('default').meanFalseDeaths).toBe(0);
  });

  it('the cut-off members themselves are declared dead (correct, not counted) and every healthy member ends alive', () => {
    for (const c of result.cells) {
      for (const run of c.runs) {
        expect(run.cutMemberDeaths).toBeGreaterThan(0);
        expect(run.stillDeadAtEnd).toBe(0);
      }
    }
  });

  it('JSON has the issue shape per cell', () => {
    const doc = JSON.parse(JSON.stringify(toJson(result, { command: 'pnpm bench blackout', date: '2025-01-01T00:00:00.000Z', node: 'v20', wallMs: 1 }))) as {
      experiment: string;
      settings: { profiles: Record<string, { config: { overdueGraceMs: number; suspicionMult: number } }> };
      cells: Array<Record<string, unknown>>;
    };
    expect(doc.experiment).toBe('blackout');
    expect(doc.settings.profiles['memberlist']!.config).toMatchObject({ overdueGraceMs: 0, suspicionMult: 5 });
    expect(doc.settings.profiles['default']!.config).toMatchObject({ overdueGraceMs: 2000, suspicionMult: 5 });
    expect(doc.cells).toHaveLength(2);
    for (const c of doc.cells) {
      expect(c).toMatchObject({ nodes: 128, cut: 32, outage: 24 });
      expect(typeof c['profile']).toBe('string');
      expect(typeof c['meanFalseDeaths']).toBe('number');
      const runs = c['runs'] as Array<Record<string, unknown>>;
      expect(runs).toHaveLength(3);
      for (const r of runs) {
        expect(typeof r['seed']).toBe('number');
        expect(typeof r['falseDeaths']).toBe('number');
        expect(typeof r['overdueVerdicts']).toBe('number');
      }
    }
  });

  it('Markdown has the false-death and mechanism tables and the settings; the SVG is well-formed', () => {
    const md = toMarkdown(result, { command: 'pnpm bench blackout --cut 32', date: '2025-01-01T00:00:00.000Z', node: 'v20.20.2', wallMs: 1234 });
    expect(md).toContain('| nodes | cut | outage (s) | memberlist | default |');
    expect(md).toContain(`| 128 | 32 | 24 | ${+cell('memberlist').meanFalseDeaths.toFixed(1)} | 0 |`);
    expect(md).toContain('## Mechanism');
    expect(md).toContain('`pnpm bench blackout --cut 32`');
    expect(md).toContain('| overdueGraceMs | 0 | 2000 |');
    const svg = toSvg(result);
    expect(checkXml(svg).problems).toEqual([]);
    expect(svg).toContain('max suspicion 63 s');
  });
});

describe('determinism', () => {
  it('the same seed gives the same run', () => {
    const options = { nodes: 24, cut: 6, outage: 20, profile: 'memberlist' as const, seed: 11 };
    const { wallMs: _a, ...first } = blackoutRun(options);
    const { wallMs: _b, ...second } = blackoutRun(options);
    expect(second).toEqual(first);
  });
});

describe('blackout --encrypt', () => {
  it("fills packets to an encrypted member's budget: the transport's less the envelope", () => {
    const config = profileConfig('default');
    expect(encryptedBudget(config).maxPacketBytes).toBe(config.maxPacketBytes - encryptionOverhead(1));
    expect(encryptedBudget(config).maxPacketBytes).toBe(1371);
  });

  it('reaches the members, and the default still has no false death on the smaller budget', () => {
    const { members } = convergedCluster({ seed: 7, nodes: 8, config: encryptedBudget(profileConfig('default')) });
    expect(members.every((m) => m.config.maxPacketBytes === 1371)).toBe(true);
    expect(blackoutRun({ nodes: 64, cut: 8, outage: 24, profile: 'default', seed: 7, encrypt: true }).falseDeaths).toBe(0);
  }, 120_000);
});
