/**
 * `pnpm bench crypto`: the cost of encryption (issue 11). The plain cluster, then one encrypted
 * cluster per engine, each run in a child process of its own, one after the other: each gets a
 * fresh heap, JIT and threadpool, nothing of the cluster before (its sockets closing, its garbage)
 * is left in the next one's window, and process.cpuUsage and the event-loop delay are that
 * cluster's alone. The parent only waits meanwhile; the raw AES-GCM runs come last, in the parent,
 * with no cluster running.
 */
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { measureAes } from './aes.js';
import { ENGINES, type ClusterRun, type CryptoParams, type CryptoResult, type Engine, type EngineRun, type Mode, type Verdict } from './result.js';

/** The repository root: the children's cwd, where `tsx` resolves. */
const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/** The issue's targets. */
export const MAX_CPU_RATIO = 1.5;
export const MAX_LAG_P99_MS = 20;

export const CRYPTO_DEFAULTS: CryptoParams = {
  members: 1000,
  seconds: 10,
  // Long enough for the last joins' gossip to die down in every cluster: after 5 s, windows still
  // carried it in one cluster and not the other (mean datagrams of 446-632 B against 63-94 B at
  // 1,000 members), and the ratio measured dissemination as much as encryption.
  settleSeconds: 30,
  convergeTimeoutSeconds: 180,
  joinPauseMs: 100,
  maxInFlight: 1024,
  payloadBytes: 1400,
  aesSeconds: 3,
  engines: ENGINES,
};

/** How the reports name each engine. */
export const ENGINE_LABELS: Readonly<Record<Engine, string>> = { node: 'node:crypto', webcrypto: 'WebCrypto' };

/** What `swim agent` runs, so the engine the issue's targets are judged for. */
export const AGENT_ENGINE: Engine = 'node';

type ChildReply = { readonly ok: true; readonly run: ClusterRun } | { readonly ok: false; readonly error: string };

/** Host one mode's cluster in a child process (Node with tsx and the @swim/source condition, like the attack suite's agents). */
export function runChild(mode: Mode, params: CryptoParams): Promise<ClusterRun> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [mode, JSON.stringify(params)], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', '--conditions=@swim/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let reply: ChildReply | undefined;
    child.on('message', (message: ChildReply) => void (reply = message));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (reply?.ok) resolve(reply.run);
      else reject(new Error(`crypto ${mode} child ${reply === undefined ? `exited (${signal ?? code}) without a result` : `failed: ${reply.error}`}`));
    });
  });
}

const ratio = (encrypted: number | undefined, plain: number | undefined): number =>
  encrypted === undefined || plain === undefined || plain === 0 ? Number.NaN : encrypted / plain;

/** How the reports name a cluster. */
export function modeLabel(mode: Mode): string {
  return mode === 'plain' ? 'plain' : `encrypted (${ENGINE_LABELS[mode]})`;
}

/** The issue's targets (and, before them, that the encrypted cluster forms at all), judged on what was measured. */
export function verdicts(target: number, plain: ClusterRun, encrypted: ClusterRun, cpuRatio: number): Verdict[] {
  const p = plain.window;
  const e = encrypted.window;
  const unsettled = [plain, encrypted].filter((r) => r.window !== undefined && !r.converged).map((r) => modeLabel(r.mode));
  const caveat = unsettled.length === 0 ? '' : `; measured although the ${unsettled.join(' and ')} cluster had not converged`;
  const missing = (run: ClusterRun) => `not measured: the ${modeLabel(run.mode)} cluster did not grow to ${target} members within ${(run.convergeMs / 1000).toFixed(0)} s`;
  const cpu =
    p === undefined || e === undefined
      ? missing(p === undefined ? plain : encrypted)
      : `${cpuRatio.toFixed(2)}x (${e.cpuMsPerMemberSecond.toFixed(3)} / ${p.cpuMsPerMemberSecond.toFixed(3)} ms CPU per member per second)${caveat}`;
  const lag = e === undefined ? missing(encrypted) : `${e.lagP99Ms.toFixed(1)} ms (plain ${p === undefined ? '—' : p.lagP99Ms.toFixed(1)} ms)${caveat}`;
  const formed = (run: ClusterRun) =>
    run.converged
      ? `converged in ${(run.convergeMs / 1000).toFixed(1)} s`
      : `NOT converged: ${run.members} of ${target} members after ${(run.convergeMs / 1000).toFixed(0)} s, ${run.suspectsGrowing.toLocaleString('en-US')} suspect and ${run.deathsGrowing.toLocaleString('en-US')} dead events`;
  return [
    { target: `an encrypted cluster of ${target} members forms in one process`, measured: `${formed(encrypted)} (plain: ${formed(plain)})`, met: encrypted.converged && e !== undefined },
    { target: `encryption costs at most ${MAX_CPU_RATIO}x CPU per member per second`, measured: cpu, met: cpuRatio <= MAX_CPU_RATIO },
    { target: `event-loop delay p99 < ${MAX_LAG_P99_MS} ms with encryption`, measured: lag, met: e !== undefined && e.lagP99Ms < MAX_LAG_P99_MS },
  ];
}

/** One engine's encrypted cluster against the plain one: the ratios, the added CPU per AES-GCM operation, the verdicts. */
export function compare(target: number, plain: ClusterRun, engine: Engine, encrypted: ClusterRun): EngineRun {
  const p = plain.window;
  const e = encrypted.window;
  const perPacket = (w: typeof p) => (w === undefined || w.packetsSent === 0 ? undefined : w.cpuMs / w.packetsSent);
  const cpuRatio = ratio(e?.cpuMsPerMemberSecond, p?.cpuMsPerMemberSecond);
  const c = encrypted.wrapperWindow;
  const operations = c === undefined ? 0 : c.packetsEncrypted + c.packetsDecrypted + c.streamsEncrypted + c.streamsDecrypted;
  const operationsPerSecond = e === undefined ? Number.NaN : operations / e.seconds;
  // CPU per second the encrypted cluster spent beyond the plain one, spread over its AES-GCM operations.
  const addedCpuMicros = p === undefined || e === undefined || operations === 0 ? Number.NaN : ((e.cpuMs / e.seconds - p.cpuMs / p.seconds) * 1000) / operationsPerSecond;
  return {
    engine,
    cluster: encrypted,
    ratios: {
      cpuPerMemberSecond: cpuRatio,
      packetsPerSecond: ratio(e?.packetsPerSecond, p?.packetsPerSecond),
      cpuPerPacket: ratio(perPacket(e), perPacket(p)),
      lagP99: ratio(e?.lagP99Ms, p?.lagP99Ms),
    },
    operations: { perSecond: operationsPerSecond, addedCpuMicros },
    verdicts: verdicts(target, plain, encrypted, cpuRatio),
  };
}

export async function runCrypto(params: CryptoParams, log: (line: string) => void = () => {}): Promise<CryptoResult> {
  const loadBefore = loadavg()[0]!;
  log(`crypto: plain cluster of ${params.members} members (child process)...`);
  const plain = await runChild('plain', params);
  const encrypted: EngineRun[] = [];
  for (const engine of params.engines) {
    log(`crypto: encrypted cluster of ${params.members} members, AES-GCM through ${ENGINE_LABELS[engine]} (child process)...`);
    encrypted.push(compare(params.members, plain, engine, await runChild(engine, params)));
  }
  log(`crypto: raw AES-GCM, ${params.payloadBytes} B, through ${params.engines.map((e) => ENGINE_LABELS[e]).join(', ')} and the bare cipher...`);
  const aes = await measureAes(params.payloadBytes, params.aesSeconds, params.maxInFlight, params.engines);
  return {
    experiment: 'crypto',
    params,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', loadAverage: [loadBefore, loadavg()[0]!] },
    plain,
    encrypted,
    judged: params.engines.includes(AGENT_ENGINE) ? AGENT_ENGINE : params.engines[0]!,
    aes,
  };
}
