/**
 * `pnpm bench starve`: the flags, how a profile becomes an agent's `--config` overrides, how dead
 * events are read from agents' JSON logs and counted, and one tiny run of real processes.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '@swim/core';
import { lifeguardProfileConfig, LIFEGUARD_PROFILES } from '../src/experiments/lifeguard/profiles.js';
import { parseStarveArgs, STARVE_DEFAULTS, STARVE_QUICK, STARVE_USAGE } from '../src/experiments/starve/params.js';
import { starveJson, starveMarkdown, starveResultFromJson, starveSummary } from '../src/experiments/starve/report.js';
import { parseUdpTable, udpSocketsByPort } from '../src/experiments/starve/udp-drops.js';
import { agentOverrides, countDeaths, countSuspicions, deathsIn, runStarve, stallStatsIn, suspicionsIn } from '../src/experiments/starve/run.js';
import { parseArgs, usage } from '../src/cli.js';

describe('pnpm bench starve flags', () => {
  it('defaults to 24 agents, k 1, 2, 4, 8, swim and default, blocked 2 s then one loop turn, for 120 s', () => {
    expect(parseStarveArgs(['starve']).params).toEqual(STARVE_DEFAULTS);
    expect(STARVE_DEFAULTS).toMatchObject({ mode: 'block', nodes: 24, starved: [1, 2, 4, 8], profiles: ['swim', 'default'], stopMs: 2000, runMs: 0, seconds: 120 });
    expect(parseStarveArgs(['starve', '--quick']).params).toEqual(STARVE_QUICK);
  });

  it('takes every flag', () => {
    const o = parseStarveArgs(['starve', '--mode', 'sigstop', '--profile', 'lifeguard', '--nodes', '30', '--starved', '0,4', '--stop-ms', '2000', '--run-ms=100', '--seconds', '60', '--tail', '5', '--settle', '2', '--seed', '9', '--logs', 'logs', '--json', 'x.json', '--out', 'dir']);
    expect(o.params).toEqual({ mode: 'sigstop', nodes: 30, starved: [0, 4], profiles: ['lifeguard'], stopMs: 2000, runMs: 100, seconds: 60, tailSeconds: 5, settleSeconds: 2, seed: 9, logsDir: 'logs' });
    expect(o).toMatchObject({ json: 'x.json', out: 'dir', help: false });
  });

  it('lists every problem at once', () => {
    expect(() => parseStarveArgs(['starve', '--nodes', '2', '--starved', '1,1', '--profile', 'raft', '--stop-ms', '0', '--seconds', 'x', 'more'])).toThrow(
      /unexpected argument "more"; --nodes: 2 must be at least 3; --starved: a value is listed twice in "1,1"; --profile: "raft" is not one of swim, lha-probe, lha-suspicion, buddy, lifeguard, default; --stop-ms: 0 must be at least 1; --seconds: "x" is not a number/,
    );
    expect(() => parseStarveArgs(['starve', '--starved', '23'])).toThrow(/--starved 23: must leave at least two agents of 24 running freely/);
    expect(() => parseStarveArgs(['starve', '--cut', '1'])).toThrow(/cut/);
    expect(() => parseStarveArgs(['starve', '--mode', 'sigstop', '--run-ms', '0'])).toThrow(/--run-ms: 0 must be at least 1/);
    expect(() => parseStarveArgs(['starve', '--mode', 'stress'])).toThrow(/--mode: "stress" is not one of block, sigstop/);
    expect(parseStarveArgs(['starve', '--run-ms', '0']).params.runMs).toBe(0);
  });

  it('is listed by pnpm bench --help and has its own usage', () => {
    expect(usage()).toContain('starve ');
    expect(parseArgs(['starve']).experiment).toBe('starve');
    for (const flag of ['--profile', '--nodes', '--starved', '--stop-ms', '--run-ms', '--seconds', '--tail', '--settle', '--seed', '--quick', '--json', '--out']) expect(STARVE_USAGE).toContain(flag);
  });
});

describe('agent overrides', () => {
  it.each(LIFEGUARD_PROFILES)('%s: the lan preset with the overrides is the profile exactly', (profile) => {
    expect(resolveConfig(agentOverrides(lifeguardProfileConfig(profile)) as never, 'lan')).toEqual(lifeguardProfileConfig(profile));
  });
});

describe('reading the logs', () => {
  // Lines as `swim agent --log json` writes them (apps/cli src/output/changes.ts changeJson and the agent's log).
  const line = (time: string, event: string, name: string, cause?: string) =>
    JSON.stringify({ time, self: 'x', event, member: { name, address: '127.0.0.1:1', state: event, incarnation: 0 }, previous: 'suspect', ...(cause === undefined ? {} : { cause }) });
  const lines = [
    line('2026-01-01T00:00:01.000Z', 'dead', 'h2', 'timeout'),
    line('2026-01-01T00:00:02.000Z', 'suspect', 'h2'),
    'not json, "event":"dead"',
    JSON.stringify({ time: '2026-01-01T00:00:03.000Z', self: 'x', event: 'start', address: '127.0.0.1:1' }),
    line('2026-01-01T00:00:04.000Z', 'dead', 's1', 'gossip'),
  ];

  it('takes the dead events, with time, subject and cause', () => {
    expect(deathsIn('h1', lines)).toEqual([
      { at: Date.parse('2026-01-01T00:00:01.000Z'), observer: 'h1', subject: 'h2', cause: 'timeout' },
      { at: Date.parse('2026-01-01T00:00:04.000Z'), observer: 'h1', subject: 's1', cause: 'gossip' },
    ]);
  });

  it('counts FP, FP- and deaths of starved agents inside the window only', () => {
    const starved = new Set(['s1']);
    const deaths = [...deathsIn('h1', lines), ...deathsIn('s1', [line('2026-01-01T00:00:05.000Z', 'dead', 'h3', 'timeout')])];
    const t = (s: number) => Date.parse(`2026-01-01T00:00:0${s}.000Z`);
    expect(countDeaths(deaths, starved, t(0), t(9))).toEqual({ fp: 2, fpMinus: 1, fpVerdicts: 2, fpAtStarved: 1, starvedDeaths: 1 });
    expect(countDeaths(deaths, starved, t(2), t(9))).toEqual({ fp: 1, fpMinus: 0, fpVerdicts: 1, fpAtStarved: 1, starvedDeaths: 1 });
  });

  it('counts suspicions of never-starved agents anywhere, and of starved agents at never-starved ones, inside the window', () => {
    const starved = new Set(['s1']);
    const suspicions = [
      ...suspicionsIn('h1', [...lines, line('2026-01-01T00:00:06.000Z', 'suspect', 's1')]),
      ...suspicionsIn('s1', [line('2026-01-01T00:00:07.000Z', 'suspect', 'h3')]),
      ...suspicionsIn('s2', [line('2026-01-01T00:00:08.000Z', 'suspect', 's1')]),
    ];
    expect(suspicions.map((s) => `${s.observer}>${s.subject}`)).toEqual(['h1>h2', 'h1>s1', 's1>h3', 's2>s1']);
    const t = (s: number) => Date.parse(`2026-01-01T00:00:0${s}.000Z`);
    // s2 is not starved in this cell: its suspicion of s1 counts as one at a never-starved agent.
    expect(countSuspicions(suspicions, starved, t(0), t(9))).toEqual({ suspectedHealthy: 2, suspectedStarved: 2 });
    // Now s2 is starved too: its suspicion of s1 is one starved agent's of another, not counted.
    expect(countSuspicions(suspicions, new Set(['s1', 's2']), t(3), t(9))).toEqual({ suspectedHealthy: 1, suspectedStarved: 1 });
  });

  it('reads the kernel\'s drops and receive-queue bytes per local UDP port from a /proc/net/udp table, skipping what does not parse', () => {
    const table = [
      '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops',
      '  123: 0100007F:B3CB 00000000:0000 07 00000000:00033F00 00:00000000 00000000     0        0 81234 2 0000000000000000 57',
      '  124: 00000000:0044 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1234 2 0000000000000000 0',
      'garbage',
    ].join('\n');
    expect(parseUdpTable(table)).toEqual([
      [0xb3cb, 57, 0x33f00],
      [0x44, 0, 0],
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'udp-table-'));
    writeFileSync(join(dir, 'udp'), table);
    expect(udpSocketsByPort([join(dir, 'udp'), join(dir, 'missing')])?.get(0xb3cb)).toEqual({ drops: 57, queuedBytes: 0x33f00 });
    expect(udpSocketsByPort([join(dir, 'missing')])).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the stall hook's own account of the starving, and nothing from a line that only looks like it", () => {
    expect(stallStatsIn(['{"event":"dead"}', '{"event":"starve-stats","stalls":30,"blockedMs":59700,"spanMs":60000}'])).toEqual({ stalls: 30, blockedMs: 59700, spanMs: 60000 });
    expect(stallStatsIn(['{"event":"starve-stats","stalls":"30"}', 'not json "event":"starve-stats"'])).toBeUndefined();
  });
});

describe('the report', () => {
  it('says what a starved agent gets between stalls, and --render gives the same Markdown from the JSON', () => {
    const cell = { profile: 'swim' as const, k: 1, starvedNames: ['s3'], fp: 2, fpMinus: 1, fpVerdicts: 2, fpAtStarved: 1, starvedDeaths: 5, suspectedHealthy: 7, suspectedStarved: 9, udpDrops: { starved: 40, others: 0 }, udpBacklog: { starved: 212_992, others: 2048 }, fpBefore: 0, stops: 60, blockedShare: 0.995, wallMs: 1000 };
    const result = { experiment: 'starve' as const, params: STARVE_DEFAULTS, cells: [cell] };
    const info = { command: 'pnpm bench starve', date: '2026-01-01T00:00:00.000Z', node: 'v20', wallMs: 1 };
    const md = starveMarkdown(result, info);
    expect(md).toContain('the event loop blocked for 2000 ms, then one turn of its event loop');
    expect(starveMarkdown({ ...result, params: { ...STARVE_DEFAULTS, mode: 'sigstop', stopMs: 900, runMs: 100 } }, info)).toContain('SIGSTOP for 900 ms, then SIGCONT for 100 ms (10% of the time running)');
    expect(md).toContain('| 1 of 24 | 2 | 1 |');
    expect(md).toContain('| 5 | 7 | 9 | 40 / 0 | 208 KiB / 2 KiB | 0 | 60 | 99.5% |');
    expect(starveMarkdown(starveResultFromJson(JSON.parse(JSON.stringify(starveJson(result, info))) as Record<string, unknown>), info)).toBe(md);
    expect(parseStarveArgs(['starve', '--render', 'x.json']).render).toBe('x.json');
  });
});

describe('a tiny run of real agents', () => {
  it.each(['sigstop', 'block'] as const)('%s: starts the agents, starves one, counts, reports, and leaves none behind', { timeout: 240_000 }, async (mode) => {
    const logsDir = mkdtempSync(join(tmpdir(), 'starve-logs-'));
    const params = { ...STARVE_DEFAULTS, mode, nodes: 3, starved: [1], profiles: ['default'] as const, stopMs: 600, runMs: mode === 'block' ? 0 : 200, seconds: 3, tailSeconds: 1, settleSeconds: 0, logsDir };
    const result = await runStarve(params);
    // --logs keeps each agent's log, the start line included.
    const kept = readdirSync(join(logsDir, 'default-k1')).sort();
    expect(kept).toEqual(['s0.jsonl', 's1.jsonl', 's2.jsonl']);
    expect(readFileSync(join(logsDir, 'default-k1', 's0.jsonl'), 'utf8')).toContain('"event":"start"');
    rmSync(logsDir, { recursive: true, force: true });
    expect(result.cells).toHaveLength(1);
    const cell = result.cells[0]!;
    expect(cell.starvedNames).toHaveLength(1);
    expect(cell.stops).toBeGreaterThan(0);
    // Block mode: the stalls are the hook's own count, and the loop was blocked most of the time.
    if (mode === 'block') expect(cell.blockedShare).toBeGreaterThan(0.5);
    else expect(cell.blockedShare).toBeUndefined();
    // Linux: the kernel's drop counts were read for the agents' sockets.
    expect(cell.udpDrops).toBeDefined();
    expect(cell.udpBacklog).toBeDefined();
    expect(cell.fpMinus).toBeLessThanOrEqual(cell.fp);
    expect(starveSummary(result)).toContain('| 1 of 3 |');
    expect(starveMarkdown(result, { command: 'pnpm bench starve', date: '2026-01-01T00:00:00.000Z', node: 'v20', wallMs: 1 })).toContain('## k vs FP and FP-');
  });
});
