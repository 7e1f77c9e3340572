/** `pnpm bench crypto`'s reports: Markdown tables (stdout and `--out`) and JSON with the provenance head. */
import type { SecureTransportCounters } from '@swim/encryption';
import type { WindowResult } from '../../../../../packages/transport-udp/bench/cluster.js';
import type { RunInfo } from '../index.js';
import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { formatDuration } from '../../stats.js';
import type { AesApi, ClusterRun, CryptoResult } from './result.js';
import { AGENT_ENGINE, ENGINE_LABELS, modeLabel } from './run.js';

const fmt = (n: number | undefined, digits = 0): string =>
  n === undefined || Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (x: number | undefined, digits = 1): string => (x === undefined || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(digits)} %`);
const times = (x: number): string => (Number.isNaN(x) ? '—' : `${x.toFixed(2)}x`);

function ratioOf(a: number | undefined, b: number | undefined): number {
  return a === undefined || b === undefined || b === 0 ? Number.NaN : a / b;
}

type Pick = (w: WindowResult, run: ClusterRun) => number | undefined;

/** Plain, then each engine's value and its ratio to plain. */
function clusterTable(result: CryptoResult): string {
  const value = (run: ClusterRun, pick: Pick) => (run.window === undefined ? undefined : pick(run.window, run));
  /** One figure of every window, and each engine's ratio to plain when `withRatio`. */
  const row = (what: string, pick: Pick, show: (v: number | undefined) => string, withRatio = true): string[] => {
    const plain = value(result.plain, pick);
    return [
      what,
      show(plain),
      ...result.encrypted.flatMap((e) => {
        const encrypted = value(e.cluster, pick);
        return [show(encrypted), withRatio ? times(ratioOf(encrypted, plain)) : ''];
      }),
    ];
  };
  /** A row of per-run text, no ratios. */
  const text = (what: string, of: (run: ClusterRun) => string): string[] => [what, of(result.plain), ...result.encrypted.flatMap((e) => [of(e.cluster), ''])];
  const digits = (n: number) => (v: number | undefined) => fmt(v, n);
  const threadShare = (side: 'mainMs' | 'otherMs'): Pick => (w, r) => (r.threads === undefined ? undefined : r.threads[side] / (w.seconds * 1000));
  const events = (r: ClusterRun) => (r.window === undefined ? '—' : `${r.window.suspects} / ${r.window.deaths}`);
  const grow = (r: ClusterRun) =>
    `${r.members} ${r.converged ? 'converged' : '**NOT converged**'} in ${formatDuration(r.convergeMs)}` +
    (r.joinRetries > 0 ? `, ${r.joinRetries} joins retried` : '') +
    (r.joinFailures > 0 ? `, ${r.joinFailures} gave up` : '') +
    `; ${r.suspectsBefore} / ${r.deathsBefore} suspect / dead events before the window`;
  const growing = (what: string, pick: (r: ClusterRun) => number, show: (v: number | undefined) => string, withRatio: boolean): string[] => [
    what,
    show(pick(result.plain)),
    ...result.encrypted.flatMap((e) => [show(pick(e.cluster)), withRatio ? times(ratioOf(pick(e.cluster), pick(result.plain))) : '']),
  ];
  const rows = [
    row('CPU per member per second, ms', (w) => w.cpuMsPerMemberSecond, digits(3)),
    row('packets sent per second (UDP, whole cluster)', (w) => w.packetsPerSecond, digits(0)),
    row('mean datagram size, bytes', (w) => w.bytesPerPacket, digits(0)),
    row('CPU per packet sent, µs', (w) => (w.packetsSent === 0 ? undefined : (w.cpuMs * 1000) / w.packetsSent), digits(1)),
    row('CPU, share of one core (all threads)', (w) => w.cpuShare, (v) => pct(v)),
    row('  of which the main thread', threadShare('mainMs'), (v) => pct(v)),
    row('  of which other threads (threadpool, V8)', threadShare('otherMs'), (v) => pct(v)),
    row('event-loop delay p50, ms', (w) => w.lagP50Ms, digits(1)),
    row('event-loop delay p99, ms', (w) => w.lagP99Ms, digits(1)),
    row('event-loop delay max, ms', (w) => w.lagMaxMs, digits(1)),
    row('UDP loss', (w) => w.udpLoss, (v) => pct(v, 3), false),
    row('send queue full (dropped)', (w) => w.queueFull, digits(0), false),
    text('suspect / dead events in the window', events),
    text('grown and converged', grow),
    growing('while growing: CPU, share of one core', (r) => r.growing.cpuShare, (v) => pct(v), true),
    growing('while growing: event-loop delay p99, ms', (r) => r.growing.lagP99Ms, digits(1), false),
    text('crypto operations pending in the process, peak while growing / in the window', (r) =>
      r.inFlightPeak === undefined ? '' : `${fmt(r.inFlightPeak.growing)} / ${fmt(r.inFlightPeak.window)}`,
    ),
    row('window measured, s', (w) => w.seconds, digits(2), false),
  ];
  const heads = result.encrypted.flatMap((e) => [ENGINE_LABELS[e.engine], `${ENGINE_LABELS[e.engine]} / plain`]);
  return table(['figure', 'plain', ...heads], rows, ['l', 'r', ...result.encrypted.flatMap(() => ['r', 'r'] as const)]);
}

const COUNTERS: ReadonlyArray<keyof SecureTransportCounters> = [
  'packetsEncrypted',
  'packetsDecrypted',
  'streamsEncrypted',
  'streamsDecrypted',
  'decryptFailures',
  'inFlightDropped',
  'plaintextAccepted',
  'plaintextRefused',
  'labelMismatches',
  'errors',
];

function countersTable(result: CryptoResult): string {
  return table(
    ['wrapper counter (all members)', ...result.encrypted.flatMap((e) => [`${ENGINE_LABELS[e.engine]}, in the window`, `${ENGINE_LABELS[e.engine]}, whole run`])],
    COUNTERS.map((name) => [name, ...result.encrypted.flatMap((e) => [fmt(e.cluster.wrapperWindow?.[name]), fmt(e.cluster.wrapperTotal?.[name])])]),
  );
}

const API_NAMES: Readonly<Record<AesApi, string>> = {
  node: 'node:crypto engine (encryptBlob / decryptBlob)',
  webcrypto: 'WebCrypto engine (encryptBlob / decryptBlob)',
  cipher: 'node:crypto cipher alone (no blob layer, no promise)',
};

function aesTable(result: CryptoResult): string {
  return table(
    ['API', 'operation', 'pending', 'ops/s', 'MB/s (plaintext)', 'CPU per op, µs (all threads)', 'loop p99, ms', 'failures'],
    result.aes.map((a) => [API_NAMES[a.api], a.op, fmt(a.concurrency), fmt(a.operationsPerSecond), fmt(a.megabytesPerSecond, 1), fmt(a.cpuMicrosPerOperation, 1), fmt(a.lagP99Ms, 1), fmt(a.failures)]),
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

/** The judged engine first, then the others, each engine's targets in the issue's order. */
function verdictTable(result: CryptoResult): string {
  const ordered = [...result.encrypted].sort((a, b) => Number(b.engine === result.judged) - Number(a.engine === result.judged));
  const rows = ordered.flatMap((e) =>
    e.verdicts.map((v) => [v.target, e.engine === result.judged ? `${ENGINE_LABELS[e.engine]} (judged)` : `${ENGINE_LABELS[e.engine]} (stated)`, v.measured, v.met ? 'MET' : '**MISSED**']),
  );
  return table(['target (issue 11)', 'engine', 'measured', 'verdict'], rows, ['l', 'l', 'l', 'l']);
}

/** One line per engine: how many targets it met; the judged one is the verdict. */
function verdictHeadline(result: CryptoResult): string {
  return result.encrypted
    .map((e) => {
      const met = e.verdicts.filter((v) => v.met).length;
      const all = met === e.verdicts.length;
      const role = e.engine === result.judged ? (e.engine === AGENT_ENGINE ? 'judged, what `swim agent` runs' : 'judged') : 'stated';
      return `${ENGINE_LABELS[e.engine]} (${role}): ${all ? 'MET' : '**MISSED**'}, ${met} of ${e.verdicts.length} targets met.`;
    })
    .join('  \n');
}

function profileSection(result: CryptoResult): string[] {
  const out: string[] = [];
  for (const run of [result.plain, ...result.encrypted.map((e) => e.cluster)]) {
    for (const phase of ['growing', 'window'] as const) {
      const profiled = run.profiles[phase];
      if (profiled === undefined) continue;
      const s = profiled.summary;
      const share = (ms: number) => pct(s.busyMs > 0 ? ms / s.busyMs : Number.NaN);
      out.push(
        `### Main thread, ${modeLabel(run.mode)}, ${phase === 'growing' ? 'growing and converging' : 'the measured window'}: ${fmt(s.busyMs)} ms busy`,
        `${fmt(s.encryptionSelfMs)} ms (${share(s.encryptionSelfMs)}) in the encryption path itself (@swim/encryption and Node's crypto, with the natives they call); ` +
          `${fmt(s.encryptionMs)} ms (${share(s.encryptionMs)}) with it on the stack (also the sends and the member's handlers the wrapper calls); ` +
          `${fmt(s.gcMs)} ms (${share(s.gcMs)}) in the garbage collector.  \n` +
          `Profile: ${profiled.path}. Threads other than the main one (the threadpool, where WebCrypto's AES-GCM runs) are not sampled. The functions with the most self time:`,
        table(['function', 'self time', 'share'], s.hot.map((h) => [h.where, `${fmt(h.selfMs)} ms`, pct(h.selfShare)]), ['l', 'r', 'r']),
      );
    }
  }
  return out;
}

/** Raw cost per operation, one at a time, of one API: `encrypt x µs, decrypt y µs`. */
function rawCost(result: CryptoResult, api: AesApi): string {
  return result.aes
    .filter((a) => a.api === api && a.concurrency === 1)
    .map((a) => `${a.op} ${fmt(a.cpuMicrosPerOperation, 1)} µs`)
    .join(', ');
}

/** Each engine's added CPU per AES-GCM operation in the cluster, beside the raw runs' cost per operation. */
function perOperation(result: CryptoResult): string {
  const lines = result.encrypted.map(
    (e) =>
      `${ENGINE_LABELS[e.engine]}: encryption added ${fmt(e.operations.addedCpuMicros, 1)} µs of CPU per AES-GCM operation in the cluster ` +
      `(${fmt(e.operations.perSecond)} operations/s: packets and streams sealed and opened, all members); ` +
      `raw, one ${result.params.payloadBytes}-byte operation at a time through encryptBlob / decryptBlob: ${rawCost(result, e.engine)}.`,
  );
  lines.push(`node:crypto's cipher alone, raw: ${rawCost(result, 'cipher')}.`);
  return lines.join('  \n');
}

/** What `pnpm bench crypto` prints. */
export function cryptoSummary(result: CryptoResult): string {
  const p = result.params;
  const engines = result.encrypted.map((e) => ENGINE_LABELS[e.engine]).join(', ');
  return [
    `## ${p.members} LAN members over real UDP in one process, plain vs encrypted through ${engines} (${p.seconds} s measured)`,
    clusterTable(result),
    perOperation(result),
    `## Verdict, judged for ${ENGINE_LABELS[result.judged]}${result.judged === AGENT_ENGINE ? ' (what `swim agent` runs)' : ''}`,
    verdictHeadline(result),
    verdictTable(result),
    '## The wrappers in the encrypted runs',
    countersTable(result),
    `## Raw AES-256-GCM, ${p.payloadBytes} B payloads, ${p.aesSeconds} s each`,
    aesTable(result),
    ...profileSection(result),
  ].join('\n\n');
}

export function cryptoMarkdown(result: CryptoResult, info: RunInfo): string {
  const p = result.params;
  const head = [
    '# Encryption cost: members over real UDP with and without AES-GCM (issue 11)',
    [
      `Command: \`${info.command}\`  `,
      `Date: ${info.date}  `,
      `Node ${info.node}, ${result.machine.cpus} x ${result.machine.cpuModel}, libuv threadpool ${result.plain.threadpool}, wall time ${formatDuration(info.wallMs)}  `,
      `Machine load average (1 min) at the start and the end: ${result.machine.loadAverage.map((l) => l.toFixed(2)).join(' and ')}`,
    ].join('\n'),
    [
      `Each cluster runs in a child process of its own, plain first, then one encrypted cluster per engine (${result.encrypted.map((e) => ENGINE_LABELS[e.engine]).join(', then ')}), never two at once.`,
      `${p.members} @swim/runtime members (LAN preset) on 127.0.0.1, each on its own UDP + TCP transport (@swim/transport-udp), grown ten joins at a time through member 0`,
      `and a random older member (packages/transport-udp/bench/cluster.ts) with a ${p.joinPauseMs} ms pause after each batch, converged (every member sees every member alive;`,
      `at most ${p.convergeTimeoutSeconds} s), settled ${p.settleSeconds} s, then measured ${p.seconds} s. Encrypted: every member behind`,
      `\`secureTransport(udp, { keyring: Keyring.from([key], { engine }), maxInFlight: ${p.maxInFlight} })\` with one 32-byte key (AES-256-GCM, memberlist's format):`,
      'node:crypto is `nodeCryptoEngine` (@swim/encryption/node: synchronous, on the main thread; what `swim agent` runs), WebCrypto is `webCryptoEngine`',
      '(crypto.subtle: each operation a job on the libuv threadpool and a completion on the main thread).',
      'CPU: process.cpuUsage (user + system, every thread) over the window, per member per second;',
      'the main-thread / other-threads split is from /proc/self/task. Event-loop delay: perf_hooks.monitorEventLoopDelay, resolution 10 ms, minus the resolution.',
      'Packets: datagrams the UDP transports sent. The machine is shared with other work (see the load average): figures move from run to run.',
    ].join('\n'),
  ];
  const profiledNote = result.params.cpuProfDir !== undefined ? ['Growing and the windows ran under the CPU profiler (--cpu-prof): their CPU figures include its cost.'] : [];
  return `${[...head, ...profiledNote, cryptoSummary(result)].join('\n\n')}\n`;
}

export function cryptoJson(result: CryptoResult, info: RunInfo): Record<string, unknown> {
  const { experiment, ...rest } = result;
  return { ...provenance(experiment, info), ...rest };
}
