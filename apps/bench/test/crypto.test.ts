/**
 * `pnpm bench crypto` at a tiny size: both clusters (each in its child process) and the raw AES-GCM
 * runs happen for real, and every figure of the report is checked against the measurements it is
 * computed from. Nothing here judges the cost itself: that is what the full run reports.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs, usage } from '../src/cli.js';
import { CRYPTO_USAGE, parseCryptoArgs } from '../src/experiments/crypto/main.js';
import { cryptoJson, cryptoMarkdown, cryptoSummary } from '../src/experiments/crypto/report.js';
import type { ClusterRun, CryptoParams, CryptoResult } from '../src/experiments/crypto/result.js';
import { CRYPTO_DEFAULTS, MAX_CPU_RATIO, MAX_LAG_P99_MS, runCrypto } from '../src/experiments/crypto/run.js';

describe('pnpm bench crypto flags', () => {
  it('defaults to 1,000 members measured 10 s, the wrapper default of 1,024 pending operations and 1,400-byte payloads', () => {
    expect(parseCryptoArgs(['crypto']).params).toEqual(CRYPTO_DEFAULTS);
    expect(CRYPTO_DEFAULTS).toMatchObject({ members: 1000, seconds: 10, maxInFlight: 1024, payloadBytes: 1400 });
  });

  it('takes every flag', () => {
    const o = parseCryptoArgs(['crypto', '--members', '50', '--seconds=2', '--settle', '1', '--timeout', '30', '--join-pause', '250', '--max-in-flight', '64', '--payload-bytes', '512', '--aes-seconds', '0.5', '--json', 'x.json', '--out', 'dir']);
    expect(o.params).toMatchObject({ members: 50, seconds: 2, settleSeconds: 1, convergeTimeoutSeconds: 30, joinPauseMs: 250, maxInFlight: 64, payloadBytes: 512, aesSeconds: 0.5 });
    expect(o).toMatchObject({ json: 'x.json', out: 'dir', help: false });
  });

  it('lists every problem at once', () => {
    expect(() => parseCryptoArgs(['crypto', '--members', '2', '--seconds', 'x', '--max-in-flight', '1.5'])).toThrow(
      /--members: 2 must be at least 3; --seconds: "x" is not a number; --max-in-flight: "1.5" is not a whole number/,
    );
    expect(() => parseCryptoArgs(['crypto', '--nodes', '5'])).toThrow(/nodes/);
  });

  it('is listed by pnpm bench --help and has its own usage', () => {
    expect(usage()).toContain('crypto');
    expect(parseArgs(['crypto']).experiment).toBe('crypto');
    for (const flag of ['--members', '--seconds', '--settle', '--timeout', '--join-pause', '--max-in-flight', '--payload-bytes', '--aes-seconds', '--cpu-prof', '--json', '--out']) {
      expect(CRYPTO_USAGE).toContain(flag);
    }
  });
});

describe('pnpm bench crypto, 6 members, 1 s measured', () => {
  const profiles = mkdtempSync(join(tmpdir(), 'swim-crypto-'));
  const params: CryptoParams = { members: 6, seconds: 1, settleSeconds: 0.5, convergeTimeoutSeconds: 60, joinPauseMs: 100, maxInFlight: 64, payloadBytes: 1400, aesSeconds: 0.3, cpuProfDir: profiles };
  let result: CryptoResult;

  beforeAll(async () => {
    result = await runCrypto(params);
  }, 180_000);
  afterAll(() => rmSync(profiles, { recursive: true, force: true }));

  it.each(['plain', 'encrypted'] as const)('%s: the cluster converged and its window figures come from its measurements', (mode) => {
    const run: ClusterRun = result[mode];
    expect(run).toMatchObject({ mode, members: 6, grown: true, converged: true });
    const w = run.window!;
    expect(w.seconds).toBeGreaterThanOrEqual(params.seconds * 0.99);
    expect(w.cpuMs).toBeGreaterThan(0);
    expect(w.packetsSent).toBeGreaterThan(0);
    expect(w.cpuMsPerMemberSecond).toBeCloseTo(w.cpuMs / w.seconds / run.members, 9);
    expect(w.cpuShare).toBeCloseTo(w.cpuMs / (w.seconds * 1000), 9);
    expect(w.packetsPerSecond).toBeCloseTo(w.packetsSent / w.seconds, 9);
    expect(w.lagP99Ms).toBeGreaterThanOrEqual(w.lagP50Ms);
    expect(w.lagMaxMs).toBeGreaterThanOrEqual(w.lagP99Ms);
    expect(run.closeMs).toBeGreaterThan(0);
    expect(run.growing.cpuShare).toBeGreaterThan(0);
    expect(run.suspectsBefore).toBeGreaterThanOrEqual(run.suspectsGrowing);
  });

  it('the encrypted run went through the wrappers (every packet sealed and opened, nothing refused) and the plain one did not', () => {
    expect(result.plain.wrapperWindow).toBeUndefined();
    expect(result.plain.wrapperTotal).toBeUndefined();
    const inWindow = result.encrypted.wrapperWindow!;
    const total = result.encrypted.wrapperTotal!;
    expect(inWindow.packetsEncrypted).toBeGreaterThan(0);
    expect(inWindow.packetsDecrypted).toBeGreaterThan(0);
    expect(result.encrypted.inFlightPeak!.growing).toBeGreaterThanOrEqual(0);
    expect(result.plain.inFlightPeak).toBeUndefined();
    expect(total.streamsEncrypted).toBeGreaterThan(0); // the joins' push-pulls
    expect(total.packetsEncrypted).toBeGreaterThanOrEqual(inWindow.packetsEncrypted);
    for (const counter of ['decryptFailures', 'inFlightDropped', 'plaintextAccepted', 'plaintextRefused', 'labelMismatches', 'errors'] as const) {
      expect(total[counter], counter).toBe(0);
    }
  });

  it('ratios are encrypted over plain, and the verdicts follow from them and the issue targets', () => {
    const p = result.plain.window!;
    const e = result.encrypted.window!;
    expect(result.ratios.cpuPerMemberSecond).toBeCloseTo(e.cpuMsPerMemberSecond / p.cpuMsPerMemberSecond, 9);
    expect(result.ratios.packetsPerSecond).toBeCloseTo(e.packetsPerSecond / p.packetsPerSecond, 9);
    expect(result.ratios.cpuPerPacket).toBeCloseTo(e.cpuMs / e.packetsSent / (p.cpuMs / p.packetsSent), 9);
    const c = result.encrypted.wrapperWindow!;
    const operations = c.packetsEncrypted + c.packetsDecrypted + c.streamsEncrypted + c.streamsDecrypted;
    expect(result.operations.perSecond).toBeCloseTo(operations / e.seconds, 9);
    expect(result.operations.addedCpuMicros).toBeCloseTo(((e.cpuMs / e.seconds - p.cpuMs / p.seconds) * 1000) / result.operations.perSecond, 6);
    expect(result.verdicts.map((v) => v.met)).toEqual([true, result.ratios.cpuPerMemberSecond <= MAX_CPU_RATIO, e.lagP99Ms < MAX_LAG_P99_MS]);
    expect(result.verdicts[0]!.measured).toMatch(/^converged in [\d.]+ s \(plain: converged in [\d.]+ s\)$/);
    expect(result.verdicts[1]!.measured).toContain(`${result.ratios.cpuPerMemberSecond.toFixed(2)}x`);
    expect(result.verdicts[2]!.measured).toContain(`${e.lagP99Ms.toFixed(1)} ms`);
  });

  it('raw AES-GCM: both directions ran, none failed, and the rates are operations over seconds', () => {
    expect(result.aes.map((a) => `${a.api} ${a.op} ${a.concurrency}`)).toEqual([
      `webcrypto encrypt ${params.maxInFlight}`,
      `webcrypto decrypt ${params.maxInFlight}`,
      'webcrypto encrypt 1',
      'webcrypto decrypt 1',
      'node-sync encrypt 1',
      'node-sync decrypt 1',
    ]);
    for (const a of result.aes) {
      expect(a.operations).toBeGreaterThan(0);
      expect(a.failures).toBe(0);
      expect(a.operationsPerSecond).toBeCloseTo(a.operations / a.seconds, 6);
      expect(a.megabytesPerSecond).toBeCloseTo((a.operations * a.payloadBytes) / a.seconds / 1e6, 6);
      expect(a.cpuMicrosPerOperation).toBeCloseTo((a.cpuMs * 1000) / a.operations, 6);
    }
  });

  it.each(['growing', 'window'] as const)('profiles %s in both clusters and names the hottest functions', (phase) => {
    for (const run of [result.plain, result.encrypted]) {
      const profiled = run.profiles[phase]!;
      expect(existsSync(profiled.path)).toBe(true);
      const summary = profiled.summary;
      // A 6-member cluster is idle for most of its 1 s window (a few ms busy, sampled every ms): only growing surely has samples.
      if (phase === 'growing') expect(summary.hot.length).toBeGreaterThan(0);
      expect(summary.hot.reduce((sum, h) => sum + h.selfShare, 0)).toBeLessThanOrEqual(1 + 1e-9);
      expect(summary.hot.reduce((sum, h) => sum + h.selfMs, 0)).toBeLessThanOrEqual(summary.busyMs + 1e-6);
      expect(summary.encryptionMs).toBeLessThanOrEqual(summary.busyMs);
      // The profiler's own work (stopping, serialising) is not the cluster's.
      expect(summary.hot.some((h) => h.where.includes('node:inspector'))).toBe(false);
    }
  });

  it('the reports carry the command, the table, the verdict and the counters', () => {
    const info = { command: 'pnpm bench crypto --members 6', date: '2025-01-01T00:00:00.000Z', node: process.version, wallMs: 1234 };
    const markdown = cryptoMarkdown(result, info);
    expect(markdown).toContain('Command: `pnpm bench crypto --members 6`');
    expect(markdown).toContain('| CPU per member per second, ms |');
    expect(markdown).toContain(result.ratios.cpuPerMemberSecond.toFixed(2));
    expect(markdown).toMatch(/\| (MET|\*\*MISSED\*\*) \|/);
    expect(markdown).toContain('| decryptFailures |');
    expect(markdown).toContain('| inFlightDropped |');
    expect(cryptoSummary(result)).toContain('## Raw AES-256-GCM');
    const json = cryptoJson(result, info);
    expect(json).toMatchObject({ experiment: 'crypto', command: info.command, params, ratios: result.ratios });
    expect(json['plain']).toBe(result.plain);
    expect(json['encrypted']).toBe(result.encrypted);
  });
});
