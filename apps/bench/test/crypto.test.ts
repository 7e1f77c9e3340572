/**
 * `pnpm bench crypto` at a tiny size: the plain cluster and one encrypted cluster per engine (each
 * in its child process) and the raw AES-GCM runs happen for real, and every figure of the report is
 * checked against the measurements it is computed from. Nothing here judges the cost itself: that
 * is what the full run reports.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs, usage } from '../src/cli.js';
import { CRYPTO_USAGE, parseCryptoArgs } from '../src/experiments/crypto/main.js';
import { summariseProfile } from '../src/experiments/crypto/profile.js';
import { cryptoJson, cryptoMarkdown, cryptoSummary } from '../src/experiments/crypto/report.js';
import { ENGINES, type ClusterRun, type CryptoParams, type CryptoResult, type EngineRun } from '../src/experiments/crypto/result.js';
import { CRYPTO_DEFAULTS, ENGINE_LABELS, MAX_CPU_RATIO, MAX_LAG_P99_MS, runCrypto } from '../src/experiments/crypto/run.js';

describe('pnpm bench crypto flags', () => {
  it('defaults to 1,000 members settled 30 s and measured 10 s, the wrapper default of 1,024 pending operations, 1,400-byte payloads, both engines (node:crypto first)', () => {
    expect(parseCryptoArgs(['crypto']).params).toEqual(CRYPTO_DEFAULTS);
    expect(CRYPTO_DEFAULTS).toMatchObject({ members: 1000, seconds: 10, settleSeconds: 30, maxInFlight: 1024, payloadBytes: 1400, engines: ['node', 'webcrypto'] });
  });

  it('takes every flag', () => {
    const o = parseCryptoArgs(['crypto', '--engine', 'webcrypto', '--members', '50', '--seconds=2', '--settle', '1', '--timeout', '30', '--join-pause', '250', '--max-in-flight', '64', '--payload-bytes', '512', '--aes-seconds', '0.5', '--json', 'x.json', '--out', 'dir']);
    expect(o.params).toMatchObject({ engines: ['webcrypto'], members: 50, seconds: 2, settleSeconds: 1, convergeTimeoutSeconds: 30, joinPauseMs: 250, maxInFlight: 64, payloadBytes: 512, aesSeconds: 0.5 });
    expect(o).toMatchObject({ json: 'x.json', out: 'dir', help: false });
  });

  it('--engine is a comma-separated list run in the order given', () => {
    expect(parseCryptoArgs(['crypto', '--engine', 'webcrypto, node']).params.engines).toEqual(['webcrypto', 'node']);
    expect(parseCryptoArgs(['crypto', '--engine=node']).params.engines).toEqual(['node']);
    expect(parseCryptoArgs(['crypto', '--quick', '--engine', 'node']).params).toMatchObject({ members: 100, engines: ['node'] });
  });

  it('lists every problem at once', () => {
    expect(() => parseCryptoArgs(['crypto', '--members', '2', '--seconds', 'x', '--max-in-flight', '1.5', '--engine', 'openssl,node,node,'])).toThrow(
      /--members: 2 must be at least 3; --seconds: "x" is not a number; --max-in-flight: "1.5" is not a whole number; --engine: "openssl" is not an engine \(node, webcrypto\); --engine: "node" is listed twice; --engine: "" is not an engine/,
    );
    expect(() => parseCryptoArgs(['crypto', '--nodes', '5'])).toThrow(/nodes/);
  });

  it('is listed by pnpm bench --help and has its own usage', () => {
    expect(usage()).toContain('crypto');
    expect(parseArgs(['crypto']).experiment).toBe('crypto');
    for (const flag of ['--engine', '--members', '--seconds', '--settle', '--timeout', '--join-pause', '--max-in-flight', '--payload-bytes', '--aes-seconds', '--cpu-prof', '--json', '--out']) {
      expect(CRYPTO_USAGE).toContain(flag);
    }
  });
});

describe('pnpm bench crypto profile summary', () => {
  it('tells the encryption path\'s own time from what it calls (the transport, the member) and from the collector', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swim-crypto-profile-'));
    const frame = (functionName: string, url: string) => ({ functionName, url: url === '' ? '' : url.startsWith('node:') ? url : `file:///work/${url}`, lineNumber: 0 });
    // root ─┬ (garbage collector)
    //       ├ (idle)
    //       └ processTicksAndRejections (node:) ─ sendEncrypted (encryption) ─┬ seal (encryption/node) ─ update (node:internal/crypto) ─ (native)
    //                                                                         └ sendPacket (transport-udp) ─ send (node:dgram)
    //                                         └ tick (runtime) ─ getRandomValues (node:internal/crypto): not the wrapper's, the member's own
    //       └ onDone (node:internal/crypto): a WebCrypto job completing, no code of ours below it: the encryption path's
    const nodes = [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4, 13] },
      { id: 2, callFrame: frame('(garbage collector)', ''), children: [] },
      { id: 3, callFrame: frame('(idle)', ''), children: [] },
      { id: 4, callFrame: frame('processTicksAndRejections', 'node:internal/process/task_queues'), children: [5, 11] },
      { id: 5, callFrame: frame('#sendEncrypted', 'packages/encryption/src/secure-transport.ts'), children: [6, 9] },
      { id: 6, callFrame: frame('seal', 'packages/encryption/src/node/node-crypto-engine.ts'), children: [7] },
      { id: 7, callFrame: frame('update', 'node:internal/crypto/cipher'), children: [8] },
      { id: 8, callFrame: frame('(native)', ''), children: [] },
      { id: 9, callFrame: frame('sendPacket', 'packages/transport-udp/src/udp-transport.ts'), children: [10] },
      { id: 10, callFrame: frame('send', 'node:dgram'), children: [] },
      { id: 11, callFrame: frame('tick', 'packages/runtime/src/member.ts'), children: [12] },
      { id: 12, callFrame: frame('getRandomValues', 'node:internal/crypto/random'), children: [] },
      { id: 13, callFrame: frame('onDone', 'node:internal/crypto/util'), children: [] },
    ];
    // Sample ids and their time (µs).
    const samples: Array<[number, number]> = [[2, 400], [3, 5000], [4, 10], [5, 20], [6, 30], [7, 40], [8, 50], [9, 60], [10, 70], [11, 80], [12, 90], [13, 100]];
    const path = join(dir, 'synthetic.cpuprofile');
    writeFileSync(path, JSON.stringify({ nodes, samples: samples.map(([id]) => id), timeDeltas: samples.map(([, us]) => us) }));
    try {
      const s = summariseProfile(path);
      expect(s.busyMs).toBeCloseTo((400 + 10 + 20 + 30 + 40 + 50 + 60 + 70 + 80 + 90 + 100) / 1000, 9); // all but idle
      expect(s.gcMs).toBeCloseTo(0.4, 9);
      expect(s.encryptionSelfMs).toBeCloseTo((20 + 30 + 40 + 50 + 100) / 1000, 9); // the wrapper, the engine, node's cipher and its native, the completion
      expect(s.encryptionMs).toBeCloseTo((20 + 30 + 40 + 50 + 60 + 70 + 90 + 100) / 1000, 9); // also the send under the wrapper; a crypto frame anywhere
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pnpm bench crypto, 6 members, 1 s measured, both engines', () => {
  const profiles = mkdtempSync(join(tmpdir(), 'swim-crypto-'));
  const params: CryptoParams = {
    members: 6,
    seconds: 1,
    settleSeconds: 0.5,
    convergeTimeoutSeconds: 60,
    joinPauseMs: 100,
    maxInFlight: 64,
    payloadBytes: 1400,
    aesSeconds: 0.3,
    engines: ENGINES,
    cpuProfDir: profiles,
  };
  let result: CryptoResult;
  const runs = (): ClusterRun[] => [result.plain, ...result.encrypted.map((e) => e.cluster)];
  const engineRun = (engine: string): EngineRun => result.encrypted.find((e) => e.engine === engine)!;

  beforeAll(async () => {
    result = await runCrypto(params);
  }, 240_000);
  afterAll(() => rmSync(profiles, { recursive: true, force: true }));

  it('runs plain, then one encrypted cluster per engine in the order asked, and judges node:crypto (what swim agent runs)', () => {
    expect(runs().map((r) => r.mode)).toEqual(['plain', 'node', 'webcrypto']);
    expect(result.encrypted.map((e) => e.engine)).toEqual(['node', 'webcrypto']);
    expect(result.judged).toBe('node');
  });

  it.each(['plain', 'node', 'webcrypto'] as const)('%s: the cluster converged and its window figures come from its measurements', (mode) => {
    const run = runs().find((r) => r.mode === mode)!;
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

  it('the encrypted runs went through the wrappers (every packet sealed and opened, nothing refused) and the plain one did not', () => {
    expect(result.plain.wrapperWindow).toBeUndefined();
    expect(result.plain.wrapperTotal).toBeUndefined();
    expect(result.plain.inFlightPeak).toBeUndefined();
    for (const { engine, cluster } of result.encrypted) {
      const inWindow = cluster.wrapperWindow!;
      const total = cluster.wrapperTotal!;
      expect(inWindow.packetsEncrypted, engine).toBeGreaterThan(0);
      expect(inWindow.packetsDecrypted, engine).toBeGreaterThan(0);
      expect(cluster.inFlightPeak!.growing).toBeGreaterThanOrEqual(0);
      expect(total.streamsEncrypted, engine).toBeGreaterThan(0); // the joins' push-pulls
      expect(total.packetsEncrypted).toBeGreaterThanOrEqual(inWindow.packetsEncrypted);
      for (const counter of ['decryptFailures', 'inFlightDropped', 'plaintextAccepted', 'plaintextRefused', 'labelMismatches', 'errors'] as const) {
        expect(total[counter], `${engine} ${counter}`).toBe(0);
      }
    }
  });

  it.each(['node', 'webcrypto'] as const)('%s: ratios are its window over the plain one, and the verdicts follow from them and the issue targets', (engine) => {
    const run = engineRun(engine);
    const p = result.plain.window!;
    const e = run.cluster.window!;
    expect(run.ratios.cpuPerMemberSecond).toBeCloseTo(e.cpuMsPerMemberSecond / p.cpuMsPerMemberSecond, 9);
    expect(run.ratios.packetsPerSecond).toBeCloseTo(e.packetsPerSecond / p.packetsPerSecond, 9);
    expect(run.ratios.cpuPerPacket).toBeCloseTo(e.cpuMs / e.packetsSent / (p.cpuMs / p.packetsSent), 9);
    expect(run.ratios.lagP99).toBe(p.lagP99Ms === 0 ? Number.NaN : e.lagP99Ms / p.lagP99Ms);
    const c = run.cluster.wrapperWindow!;
    const operations = c.packetsEncrypted + c.packetsDecrypted + c.streamsEncrypted + c.streamsDecrypted;
    expect(run.operations.perSecond).toBeCloseTo(operations / e.seconds, 9);
    expect(run.operations.addedCpuMicros).toBeCloseTo(((e.cpuMs / e.seconds - p.cpuMs / p.seconds) * 1000) / run.operations.perSecond, 6);
    expect(run.verdicts.map((v) => v.met)).toEqual([true, run.ratios.cpuPerMemberSecond <= MAX_CPU_RATIO, e.lagP99Ms < MAX_LAG_P99_MS]);
    expect(run.verdicts[0]!.measured).toMatch(/^converged in [\d.]+ s \(plain: converged in [\d.]+ s\)$/);
    expect(run.verdicts[1]!.measured).toBe(`${run.ratios.cpuPerMemberSecond.toFixed(2)}x (${e.cpuMsPerMemberSecond.toFixed(3)} / ${p.cpuMsPerMemberSecond.toFixed(3)} ms CPU per member per second)`);
    expect(run.verdicts[2]!.measured).toBe(`${e.lagP99Ms.toFixed(1)} ms (plain ${p.lagP99Ms.toFixed(1)} ms)`);
  });

  it('raw AES-GCM: encryptBlob / decryptBlob through each engine (WebCrypto also with maxInFlight pending), then the bare cipher; none failed, rates are operations over seconds', () => {
    expect(result.aes.map((a) => `${a.api} ${a.op} ${a.concurrency}`)).toEqual([
      'node encrypt 1',
      'node decrypt 1',
      `webcrypto encrypt ${params.maxInFlight}`,
      `webcrypto decrypt ${params.maxInFlight}`,
      'webcrypto encrypt 1',
      'webcrypto decrypt 1',
      'cipher encrypt 1',
      'cipher decrypt 1',
    ]);
    for (const a of result.aes) {
      expect(a.operations).toBeGreaterThan(0);
      expect(a.failures).toBe(0);
      expect(a.operationsPerSecond).toBeCloseTo(a.operations / a.seconds, 6);
      expect(a.megabytesPerSecond).toBeCloseTo((a.operations * a.payloadBytes) / a.seconds / 1e6, 6);
      expect(a.cpuMicrosPerOperation).toBeCloseTo((a.cpuMs * 1000) / a.operations, 6);
    }
  });

  it.each(['growing', 'window'] as const)('profiles %s in every cluster and names the hottest functions', (phase) => {
    for (const run of runs()) {
      const profiled = run.profiles[phase]!;
      expect(profiled.path).toContain(`crypto-${run.mode}`);
      expect(existsSync(profiled.path)).toBe(true);
      const summary = profiled.summary;
      // A 6-member cluster is idle for most of its 1 s window (a few ms busy, sampled every ms): only growing surely has samples.
      if (phase === 'growing') expect(summary.hot.length).toBeGreaterThan(0);
      expect(summary.hot.reduce((sum, h) => sum + h.selfShare, 0)).toBeLessThanOrEqual(1 + 1e-9);
      expect(summary.hot.reduce((sum, h) => sum + h.selfMs, 0)).toBeLessThanOrEqual(summary.busyMs + 1e-6);
      expect(summary.encryptionMs).toBeLessThanOrEqual(summary.busyMs);
      expect(summary.encryptionSelfMs).toBeLessThanOrEqual(summary.encryptionMs);
      expect(summary.gcMs).toBeLessThanOrEqual(summary.busyMs - summary.encryptionSelfMs + 1e-6);
      // The profiler's own work (stopping, serialising) is not the cluster's.
      expect(summary.hot.some((h) => h.where.includes('node:inspector'))).toBe(false);
    }
  });

  it('the main table has a column and a ratio to plain per engine, computed from the measured windows', () => {
    const summary = cryptoSummary(result);
    expect(summary).toContain('| figure | plain | node:crypto | node:crypto / plain | WebCrypto | WebCrypto / plain |');
    const cpu = (run: ClusterRun) => run.window!.cpuMsPerMemberSecond;
    const show = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
    const ratio = (run: ClusterRun) => `${(cpu(run) / cpu(result.plain)).toFixed(2)}x`;
    const [node, web] = [engineRun('node').cluster, engineRun('webcrypto').cluster];
    expect(summary).toContain(`| CPU per member per second, ms | ${show(cpu(result.plain))} | ${show(cpu(node))} | ${ratio(node)} | ${show(cpu(web))} | ${ratio(web)} |`);
    const pps = (run: ClusterRun) => run.window!.packetsPerSecond;
    expect(summary).toContain(`| ${(pps(node) / pps(result.plain)).toFixed(2)}x |`);
    expect(summary).toContain(`| ${(pps(web) / pps(result.plain)).toFixed(2)}x |`);
  });

  it('the verdict is judged for node:crypto and stated for WebCrypto, each row from its engine\'s measurements', () => {
    const summary = cryptoSummary(result);
    expect(summary).toContain('## Verdict, judged for node:crypto (what `swim agent` runs)');
    for (const { engine, verdicts } of result.encrypted) {
      const met = verdicts.filter((v) => v.met).length;
      const role = engine === 'node' ? 'judged, what `swim agent` runs' : 'stated';
      expect(summary).toContain(`${ENGINE_LABELS[engine]} (${role}): ${met === verdicts.length ? 'MET' : '**MISSED**'}, ${met} of 3 targets met.`);
      for (const v of verdicts) {
        expect(summary).toContain(`| ${v.target} | ${ENGINE_LABELS[engine]} (${engine === 'node' ? 'judged' : 'stated'}) | ${v.measured} | ${v.met ? 'MET' : '**MISSED**'} |`);
      }
    }
    // The judged engine's rows come first.
    expect(summary.indexOf('| node:crypto (judged) |')).toBeLessThan(summary.indexOf('| WebCrypto (stated) |'));
  });

  it('the reports carry the command, the tables and the counters of every engine', () => {
    const info = { command: 'pnpm bench crypto --members 6', date: '2025-01-01T00:00:00.000Z', node: process.version, wallMs: 1234 };
    const markdown = cryptoMarkdown(result, info);
    expect(markdown).toContain('Command: `pnpm bench crypto --members 6`');
    expect(markdown).toContain('| wrapper counter (all members) | node:crypto, in the window | node:crypto, whole run | WebCrypto, in the window | WebCrypto, whole run |');
    expect(markdown).toContain('| decryptFailures | 0 | 0 | 0 | 0 |');
    expect(markdown).toContain('| inFlightDropped | 0 | 0 | 0 | 0 |');
    expect(markdown).toContain('## Raw AES-256-GCM');
    expect(markdown).toContain('| node:crypto engine (encryptBlob / decryptBlob) | encrypt | 1 |');
    expect(markdown).toContain('| node:crypto cipher alone (no blob layer, no promise) | decrypt | 1 |');
    const json = cryptoJson(result, info);
    expect(json).toMatchObject({ experiment: 'crypto', command: info.command, params, judged: 'node' });
    expect(json['plain']).toBe(result.plain);
    expect(json['encrypted']).toBe(result.encrypted);
  });

  it('only the engines asked for are reported', () => {
    const webOnly: CryptoResult = { ...result, params: { ...params, engines: ['webcrypto'] }, encrypted: [engineRun('webcrypto')], judged: 'webcrypto' };
    const summary = cryptoSummary(webOnly);
    expect(summary).toContain('| figure | plain | WebCrypto | WebCrypto / plain |');
    expect(summary).toContain('## Verdict, judged for WebCrypto\n');
    expect(summary).not.toContain('node:crypto (judged)');
  });
});
