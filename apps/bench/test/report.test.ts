import { describe, expect, it } from 'vitest';
import type { CrashResult } from '../src/experiments/crash.js';
import type { LossResult } from '../src/experiments/loss.js';
import { barChart, escapeXml, lineChart, yAxis } from '../src/report/chart.js';
import { settingsMarkdown, toMarkdown, table } from '../src/report/markdown.js';
import { toSvg } from '../src/report/svg.js';
import { summarize } from '../src/stats.js';
import { checkXml } from './xml.js';

const info = { command: 'pnpm bench x', date: '2025-01-01T00:00:00.000Z', node: 'v20.20.2', wallMs: 5000 };

describe('reports', () => {
  it('log1p axis keeps zero visible and ticks 0, 1, 3, 10, …', () => {
    const y = yAxis('log1p', 500);
    expect(y.ticks).toEqual([0, 1, 3, 10, 30, 100, 300, 1000]);
    expect(y.map(0)).toBe(0);
    expect(y.map(1000)).toBeCloseTo(1);
    expect(yAxis('linear', 0).ticks[0]).toBe(0);
  });

  it('charts are well-formed XML, with empty and odd input too', () => {
    const charts = [
      lineChart({ title: 'a & <b>', xLabel: 'x', yLabel: 'y', yScale: 'log1p', panels: [] }),
      lineChart({
        title: 't',
        xLabel: 'x',
        yLabel: 'y',
        yScale: 'log1p',
        panels: [{ title: 'p', marker: { x: 63, label: 'max' }, series: [{ name: 's"1', color: '#000', points: [[16, 0]] }] }],
      }),
      barChart({ title: 't', yLabel: 'y', yScale: 'linear', series: [{ name: 'a', color: '#111' }], groups: [{ label: 'g', bars: [{ series: 'a', value: Number.NaN }] }] }),
      barChart({ title: 't', yLabel: 'y', yScale: 'log1p', series: [], groups: [], reference: { y: 10, label: 'ref' } }),
    ];
    for (const svg of charts) expect(checkXml(svg).problems).toEqual([]);
    expect(escapeXml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&apos;');
  });

  it('Markdown tables escape pipes and align numbers right', () => {
    expect(table(['a', 'b'], [['x|y', '1']])).toBe('| a | b |\n| --- | ---: |\n| x\\|y | 1 |');
  });

  it('crash and loss reports have their tables and charts', () => {
    const outcome = { member: 'n5', firstDeadMs: 12_000, allDeadMs: 12_800, missing: [] };
    const crash: CrashResult = {
      experiment: 'crash',
      params: { nodes: [128], crashes: 1, profiles: ['memberlist', 'default'], runs: 1, seed: 1 },
      cells: (['memberlist', 'default'] as const).map((profile) => ({
        nodes: 128,
        profile,
        runs: [{ seed: 1, crashes: [outcome], falseDeaths: 0, wallMs: 1 }],
        firstDead: summarize([12]),
        allDead: summarize([12.8]),
        undetected: 0,
      })),
    };
    const md = toMarkdown(crash, info);
    expect(md).toContain('| 128 | memberlist | 1 | 12 | 12 | 12 |');
    expect(checkXml(toSvg(crash)).problems).toEqual([]);

    const run = { seed: 1, falseDeaths: 2, falseVictims: 1, suspicions: 10, nodeHours: 2, wallMs: 1 };
    const loss: LossResult = {
      experiment: 'loss',
      params: { nodes: [128], losses: [0.4], minutes: 1, profiles: ['default'], fallback: [true, false], runs: 1, seed: 1 },
      cells: [true, false].map((fallback) => ({
        nodes: 128,
        loss: 0.4,
        fallback,
        profile: 'default' as const,
        minutes: 1,
        runs: [run],
        meanFalseDeaths: 2,
        falseDeathsPerNodeHour: 1,
        falseVictimsPerNodeHour: 0.5,
      })),
    };
    const lossMd = toMarkdown(loss, info);
    expect(lossMd).toContain('| 128 | 40% | off | 2 (1) |');
    expect(checkXml(toSvg(loss)).problems).toEqual([]);
  });
});

describe('settings in a report', () => {
  it('lists every field a profile changes in the per-profile table, never among the common ones', () => {
    const text = settingsMarkdown(['memberlist', 'default'], [128]);
    const common = text.split('Common to every profile: ')[1]!.split('. Suspicion timeout')[0]!;
    for (const key of ['refutationQueueKey', 'reconnectIntervalMs', 'overdueGraceMs']) expect(common).not.toContain(`${key} `);
    expect(text).toContain('| refutationQueueKey | address | name |');
    expect(text).toContain('| reconnectIntervalMs | 0 | 30000 |');
  });
});
