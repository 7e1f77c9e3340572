/**
 * `pnpm bench udp-scale`: its flags, the memberlist host's output read back, the report computed
 * from what was measured, and one tiny real run (a cluster in its child process) whose every
 * figure in the table comes from the run.
 */
import { describe, expect, it } from 'vitest';
import { usage } from '../src/cli.js';
import type { ClusterRun } from '../src/experiments/crypto/result.js';
import { parseUdpScaleArgs, UDP_SCALE_QUICK, UDP_SCALE_USAGE } from '../src/experiments/udp-scale/main.js';
import { parseGoRun } from '../src/experiments/udp-scale/memberlist-go.js';
import { cpuRatios, udpScaleMarkdown, udpScaleTable } from '../src/experiments/udp-scale/report.js';
import type { UdpScaleResult } from '../src/experiments/udp-scale/result.js';
import { runUdpScale, UDP_SCALE_DEFAULTS } from '../src/experiments/udp-scale/run.js';

describe('pnpm bench udp-scale flags', () => {
  it('defaults to 1,000, 2,000 and 5,000 members, our side only', () => {
    expect(parseUdpScaleArgs(['udp-scale']).params).toEqual(UDP_SCALE_DEFAULTS);
    expect(UDP_SCALE_DEFAULTS).toMatchObject({ sizes: [1000, 2000, 5000], memberlist: false });
    expect(parseUdpScaleArgs(['udp-scale', '--quick']).params).toEqual(UDP_SCALE_QUICK);
  });

  it('takes every flag', () => {
    const o = parseUdpScaleArgs(['udp-scale', '--members', '300,600', '--seconds', '2', '--settle=1', '--timeout', '90', '--join-pause', '0', '--memberlist', '--json', 'x.json', '--out', 'dir']);
    expect(o.params).toEqual({ sizes: [300, 600], seconds: 2, settleSeconds: 1, convergeTimeoutSeconds: 90, joinPauseMs: 0, memberlist: true });
    expect(o).toMatchObject({ json: 'x.json', out: 'dir', help: false });
  });

  it('lists every problem at once', () => {
    expect(() => parseUdpScaleArgs(['udp-scale', '--members', '1000,2', '--seconds', 'x', '--timeout=-1', 'extra'])).toThrow(
      /unexpected argument "extra"; --members: 2 must be at least 3; --seconds: "x" is not a number; --timeout: -1 must be at least 1/,
    );
    expect(() => parseUdpScaleArgs(['udp-scale', '--nodes', '5'])).toThrow(/nodes/);
  });

  it('is listed by pnpm bench --help and has its own usage', () => {
    expect(usage()).toMatch(/udp-scale/);
    expect(UDP_SCALE_USAGE).toMatch(/--memberlist/);
  });
});

describe("the memberlist host's output", () => {
  // A line apps/bench/go/memberlist-host printed (30 members, 3 s window).
  const LINE =
    '{"implementation":"hashicorp/memberlist (Debian golang-github-hashicorp-memberlist-dev)","goVersion":"go1.19.8","members":30,"grown":true,"converged":true,"convergeMs":1386,"joinFailures":0,"growingCpuShare":0.14,"deathsBefore":0,"window":{"seconds":3.0,"cpuMs":60.05,"cpuShare":0.02,"cpuMsPerMemberSecond":0.667,"packetsSent":180,"packetsPerSecond":60,"bytesPerPacket":40.2,"deaths":0}}';

  it('is read from its last line', () => {
    const run = parseGoRun(`some log line\n${LINE}\n`);
    expect(run).toMatchObject({ members: 30, converged: true, window: { cpuMsPerMemberSecond: 0.667, packetsPerSecond: 60 } });
  });

  it('anything else is an error naming what came', () => {
    expect(() => parseGoRun('panic: boom')).toThrow(/printed no result: "panic: boom"/);
    expect(() => parseGoRun('{"hello":1}')).toThrow(/not one/);
  });
});

describe('the report', () => {
  const window = { seconds: 10, lagP50Ms: 0.1, lagP99Ms: 4, lagMaxMs: 9, cpuMs: 2000, cpuShare: 0.2, cpuMsPerMemberSecond: 0.2, packetsSent: 20_000, packetsPerSecond: 2000, bytesPerPacket: 20, udpLoss: 0, queueFull: 0, suspects: 0, deaths: 0 };
  const swim = { mode: 'plain', members: 1000, grown: true, converged: true, convergeMs: 45_000, window } as unknown as ClusterRun;
  const result: UdpScaleResult = {
    experiment: 'udp-scale',
    params: { ...UDP_SCALE_DEFAULTS, sizes: [1000, 2000], memberlist: true },
    machine: { cpus: 2, cpuModel: 'test', loadAverage: [1, 1] },
    rows: [
      { members: 1000, swim, memberlist: parseGoRun('{"implementation":"m","goVersion":"go1.19.8","members":1000,"grown":true,"converged":true,"convergeMs":30000,"joinFailures":0,"growingCpuShare":0.5,"deathsBefore":0,"window":{"seconds":10,"cpuMs":1000,"cpuShare":0.1,"cpuMsPerMemberSecond":0.1,"packetsSent":20000,"packetsPerSecond":2000,"bytesPerPacket":40,"deaths":0}}') },
      { members: 2000, swim: { ...swim, members: 2000, window: { ...window, lagP99Ms: 25 } }, memberlist: 'not measured: no go command' },
    ],
  };

  it('gives each size a row per implementation, with the verdict on the loop delay', () => {
    const lines = udpScaleTable(result).split('\n');
    expect(lines).toHaveLength(2 + 4);
    expect(lines[2]).toMatch(/^\| 1000 \| @swim \(Node\) \| converged in 45\.0 s \| 0\.200 \| 20\.0 % \| 2\.00 \| 20 \| 4\.0 \/ 9\.0 \| 0 \/ 0 \| met \|$/);
    expect(lines[3]).toMatch(/^\| 1000 \| memberlist \(go1\.19\.8\) \| converged in 30\.0 s \| 0\.100 \| 10\.0 % \| 2\.00 \| 40 \|/);
    expect(lines[4]).toMatch(/\| 25\.0 \/ 9\.0 \| 0 \/ 0 \| \*\*missed\*\* \|$/);
    expect(lines[5]).toMatch(/not measured: no go command/);
  });

  it('compares CPU per member per second only where both sides were measured', () => {
    expect(cpuRatios(result)).toEqual([{ members: 1000, ratio: 2 }]);
    expect(udpScaleMarkdown(result, { command: 'pnpm bench udp-scale', date: 'd', node: 'v20', wallMs: 1000 })).toMatch(/@swim \/ memberlist: 1000: 2\.00x/);
  });
});

it('a tiny real run: a 12-member cluster in its own process, measured', { timeout: 120_000 }, async () => {
  const result = await runUdpScale({ sizes: [12], seconds: 1, settleSeconds: 0, convergeTimeoutSeconds: 60, joinPauseMs: 0, memberlist: false }, () => {});
  const [row] = result.rows;
  expect(row!.members).toBe(12);
  expect(row!.swim.converged).toBe(true);
  const w = row!.swim.window!;
  expect(w.packetsSent).toBeGreaterThan(0);
  expect(w.cpuMsPerMemberSecond).toBeCloseTo(w.cpuMs / 12 / w.seconds, 6);
  expect(row!.memberlist).toBeUndefined();
  expect(udpScaleTable(result)).toContain(`| 12 | @swim (Node) | converged in ${(row!.swim.convergeMs / 1000).toFixed(1)} s | ${w.cpuMsPerMemberSecond.toFixed(3)} |`);
});
