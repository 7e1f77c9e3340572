/** `pnpm bench crypto`'s reports: Markdown tables (stdout and `--out`) and JSON with the provenance head. */
import type { SecureTransportCounters } from '@swim/encryption';
import type { WindowResult } from '../../../../../packages/transport-udp/bench/cluster.js';
import type { RunInfo } from '../index.js';
import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { formatDuration } from '../../stats.js';
import type { AesRun, ClusterRun, CryptoResult } from './result.js';

const fmt = (n: number | undefined, digits = 0): string =>
  n === undefined || Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (x: number | undefined, digits = 1): string => (x === undefined || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(digits)} %`);
const times = (x: number): string => (Number.isNaN(x) ? '—' : `${x.toFixed(2)}x`);

function ratioOf(a: number | undefined, b: number | undefined): number {
  return a === undefined || b === undefined || b === 0 ? Number.NaN : a / b;
}

type Pick = (w: WindowResult, run: ClusterRun) => number | undefined;

function clusterTable(result: CryptoResult): string {
  const value = (run: ClusterRun, pick: Pick) => (run.window === undefined ? undefined : pick(run.window, run));
  /** One figure of both windows, and their ratio when `withRatio`. */
  const row = (what: string, pick: Pick, show: (v: number | undefined) => string, withRatio = true): string[] => {
    const plain = value(result.plain, pick);
    const encrypted = value(result.encrypted, pick);
    return [what, show(plain), show(encrypted), withRatio ? times(ratioOf(encrypted, plain)) : ''];
  };
  const digits = (n: number) => (v: number | undefined) => fmt(v, n);
  const threadShare = (side: 'mainMs' | 'otherMs'): Pick => (w, r) => (r.threads === undefined ? undefined : r.threads[side] / (w.seconds * 1000));
  const events = (r: ClusterRun) => (r.window === undefined ? '—' : `${r.window.suspects} / ${r.window.deaths}`);
  const grow = (r: ClusterRun) =>
    `${r.members} ${r.converged ? 'converged' : '**NOT converged**'} in ${formatDuration(r.convergeMs)}` +
    (r.joinRetries > 0 ? `, ${r.joinRetries} joins retried` : '') +
    (r.joinFailures > 0 ? `, ${r.joinFailures} gave up` : '') +
    `; ${r.suspectsBefore} / ${r.deathsBefore} suspect / dead events before the window`;
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
    ['suspect / dead events in the window', events(result.plain), events(result.encrypted), ''],
    ['grown and converged', grow(result.plain), grow(result.encrypted), ''],
    ['while growing: CPU, share of one core', pct(result.plain.growing.cpuShare), pct(result.encrypted.growing.cpuShare), times(ratioOf(result.encrypted.growing.cpuShare, result.plain.growing.cpuShare))],
    ['while growing: event-loop delay p99, ms', fmt(result.plain.growing.lagP99Ms, 1), fmt(result.encrypted.growing.lagP99Ms, 1), ''],
    ['crypto operations pending in the process, peak while growing / in the window', '', `${fmt(result.encrypted.inFlightPeak?.growing)} / ${fmt(result.encrypted.inFlightPeak?.window)}`, ''],
    ['window measured, s', fmt(result.plain.window?.seconds, 2), fmt(result.encrypted.window?.seconds, 2), ''],
  ];
  return table(['figure', 'plain', 'encrypted', 'encrypted / plain'], rows, ['l', 'r', 'r', 'r']);
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

function countersTable(run: ClusterRun): string {
  return table(
    ['wrapper counter (all members)', 'in the window', 'whole run'],
    COUNTERS.map((name) => [name, fmt(run.wrapperWindow?.[name]), fmt(run.wrapperTotal?.[name])]),
  );
}

const API_NAMES: Readonly<Record<AesRun['api'], string>> = {
  webcrypto: 'WebCrypto (encryptBlob / decryptBlob)',
  'node-sync': 'node:crypto, synchronous (comparison)',
};

function aesTable(result: CryptoResult): string {
  return table(
    ['API', 'operation', 'pending', 'ops/s', 'MB/s (plaintext)', 'CPU per op, µs (all threads)', 'loop p99, ms', 'failures'],
    result.aes.map((a) => [API_NAMES[a.api], a.op, fmt(a.concurrency), fmt(a.operationsPerSecond), fmt(a.megabytesPerSecond, 1), fmt(a.cpuMicrosPerOperation, 1), fmt(a.lagP99Ms, 1), fmt(a.failures)]),
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

function verdictTable(result: CryptoResult): string {
  return table(['target (issue 11)', 'measured', 'verdict'], result.verdicts.map((v) => [v.target, v.measured, v.met ? 'MET' : '**MISSED**']), ['l', 'l', 'l']);
}

function profileSection(result: CryptoResult): string[] {
  const out: string[] = [];
  for (const run of [result.plain, result.encrypted]) {
    for (const phase of ['growing', 'window'] as const) {
      const profiled = run.profiles[phase];
      if (profiled === undefined) continue;
      const s = profiled.summary;
      const share = pct(s.busyMs > 0 ? s.encryptionMs / s.busyMs : Number.NaN);
      out.push(
        `### Main thread, ${run.mode}, ${phase === 'growing' ? 'growing and converging' : 'the measured window'}: ${fmt(s.busyMs)} ms busy, ${fmt(s.encryptionMs)} ms (${share}) with @swim/encryption or Node's WebCrypto on the stack`,
        `Profile: ${profiled.path}. The threadpool, where AES-GCM itself runs, is not sampled. The functions with the most self time:`,
        table(['function', 'self time', 'share'], s.hot.map((h) => [h.where, `${fmt(h.selfMs)} ms`, pct(h.selfShare)]), ['l', 'r', 'r']),
      );
    }
  }
  return out;
}

/** The cluster's added CPU per AES-GCM operation, beside the raw runs' cost per operation. */
function perOperation(result: CryptoResult): string {
  const raw = (api: AesRun['api'], concurrency: number) =>
    result.aes
      .filter((a) => a.api === api && a.concurrency === concurrency)
      .map((a) => `${a.op} ${fmt(a.cpuMicrosPerOperation, 1)} µs`)
      .join(', ');
  return (
    `Encryption added ${fmt(result.operations.addedCpuMicros, 1)} µs of CPU per AES-GCM operation in the cluster ` +
    `(${fmt(result.operations.perSecond)} operations/s: packets and streams sealed and opened, all members). ` +
    `Raw, per ${result.params.payloadBytes}-byte operation: WebCrypto one at a time ${raw('webcrypto', 1)}; node:crypto synchronously ${raw('node-sync', 1)}.`
  );
}

/** What `pnpm bench crypto` prints. */
export function cryptoSummary(result: CryptoResult): string {
  const p = result.params;
  return [
    `## ${p.members} LAN members over real UDP in one process, plain vs encrypted (${p.seconds} s measured)`,
    clusterTable(result),
    perOperation(result),
    '## Verdict',
    verdictTable(result),
    '## The wrappers in the encrypted run',
    countersTable(result.encrypted),
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
      `Node ${info.node}, ${result.machine.cpus} x ${result.machine.cpuModel}, libuv threadpool ${result.encrypted.threadpool}, wall time ${formatDuration(info.wallMs)}  `,
      `Machine load average (1 min) at the start and the end: ${result.machine.loadAverage.map((l) => l.toFixed(2)).join(' and ')}`,
    ].join('\n'),
    [
      `Each cluster runs in a child process of its own, plain first, then encrypted, never both at once. ${p.members} @swim/runtime members (LAN preset) on 127.0.0.1,`,
      'each on its own UDP + TCP transport (@swim/transport-udp), grown ten joins at a time through member 0 and a random older member (packages/transport-udp/bench/cluster.ts)',
      `with a ${p.joinPauseMs} ms pause after each batch, converged (every member sees every member alive; at most ${p.convergeTimeoutSeconds} s), settled ${p.settleSeconds} s, then measured ${p.seconds} s. Encrypted: every member behind`,
      `\`secureTransport(udp, { keyring: Keyring.from([key]), maxInFlight: ${p.maxInFlight} })\` with one 32-byte key (AES-256-GCM, memberlist's format, WebCrypto).`,
      'CPU: process.cpuUsage (user + system, every thread: WebCrypto runs AES-GCM on the libuv threadpool) over the window, per member per second;',
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
