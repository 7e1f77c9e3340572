/**
 * The measurements behind bench/loopback.ts (which makes sure the workspace sources are used).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createUdpTransport, type UdpTransport } from '../src/index.js';
import { Cluster, growAndConverge, HOST, LAG_RESOLUTION_MS, measureWindow, sleep, type WindowResult } from './cluster.js';

const PACKET_BYTES = 300;
/** Loss below this counts as none (the brief: < 0.1 %). */
const LOSS_LIMIT = 0.001;
const LAG_LIMIT_MS = 20;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (x: number): string => `${(x * 100).toFixed(x < 0.01 ? 3 : 1)} %`;

const UNPACED = 2 ** 31 - 1;
/** The offered rates (packets per second) the packet-rate search steps through. */
const RATES = [25_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000, 150_000];
const TARGET_PPS = 100_000;
/** `rate` against the 100,000 pps target, e.g. "0.90 x the 100,000 pps target: MISSED". */
const vsTarget = (rate: number): string => `${(rate / TARGET_PPS).toFixed(2)} x the ${fmt(TARGET_PPS)} pps target: ${rate >= TARGET_PPS ? 'met' : 'MISSED'}`;

const IGNORE = { packet: () => {}, stream: (_f: string, _b: Uint8Array, reply: (bytes: Uint8Array | undefined) => void) => reply(undefined) };

/** A transport on an ephemeral 127.0.0.1 port whose listen handler calls `onPacket` per datagram. */
async function transport(maxBurst?: number, onPacket: () => void = () => {}): Promise<UdpTransport> {
  const t = await createUdpTransport({ bind: { host: HOST, port: 0 }, ...(maxBurst === undefined ? {} : { maxBurst }) });
  t.listen({ ...IGNORE, packet: onPacket });
  return t;
}

async function pair(maxBurst: number): Promise<{ a: UdpTransport; b: UdpTransport; received: () => number }> {
  let received = 0;
  const a = await transport(maxBurst);
  const b = await transport(undefined, () => void received++);
  return { a, b, received: () => received };
}

/** A plain node:dgram socket on an ephemeral 127.0.0.1 port, calling `onMessage` per datagram. */
/** The plain-socket baseline asks for the transport's default receive buffer, so only the transport's own cost differs. */
const BASELINE_RECV_BUFFER_BYTES = 2 * 1024 * 1024;

async function socket(onMessage: () => void = () => {}): Promise<Socket> {
  const s = createSocket({ type: 'udp4', recvBufferSize: BASELINE_RECV_BUFFER_BYTES });
  s.on('message', onMessage);
  await new Promise<void>((resolve) => s.bind(0, HOST, () => resolve()));
  return s;
}

const closeSocket = (s: Socket): Promise<void> => new Promise((resolve) => s.close(() => resolve()));

/** Wait until `count()` stops changing for 250 ms (or 3 s pass). */
async function drain(count: () => number, pending: () => number): Promise<void> {
  const deadline = Date.now() + 3_000;
  let last = -1;
  while (Date.now() < deadline) {
    const now = count();
    if (now === last && pending() === 0) return;
    last = now;
    await sleep(250);
  }
}

interface RateResult {
  readonly offered: number;
  readonly sent: number;
  readonly received: number;
  readonly seconds: number;
  readonly queueFull: number;
}

/**
 * Call `send` `rate` times per second for `seconds`, calling it as often as is owed every event-loop
 * turn (at most 4,096 times a turn); how often it was called and how long that took.
 */
async function pace(rate: number, seconds: number, send: () => void): Promise<{ offered: number; seconds: number }> {
  const start = performance.now();
  const end = start + seconds * 1000;
  let offered = 0;
  for (;;) {
    const now = performance.now();
    if (now >= end) break;
    const owed = Math.min(Math.floor(((now - start) / 1000) * rate) - offered, 4096);
    for (let i = 0; i < owed; i++) send();
    offered += Math.max(0, owed);
    await turn();
  }
  return { offered, seconds: (performance.now() - start) / 1000 };
}

/** Offer `rate` packets per second from a to b for `seconds`, sending what is owed every event-loop turn. */
async function offer(rate: number, seconds: number, maxBurst: number): Promise<RateResult> {
  const { a, b, received } = await pair(maxBurst);
  const bytes = new Uint8Array(PACKET_BYTES);
  const paced = await pace(rate, seconds, () => a.sendPacket(b.address, bytes));
  await drain(received, () => a.queuedPackets);
  const result = { offered: paced.offered, sent: a.counters.packetsSent, received: received(), seconds: paced.seconds, queueFull: a.counters.dropped['queue-full'] };
  await Promise.all([a.close(), b.close()]);
  return result;
}

/** `count` datagrams sent in one synchronous loop, `repeats` times; the share received. */
async function burst(count: number, maxBurst: number, repeats: number): Promise<number> {
  const { a, b, received } = await pair(maxBurst);
  const bytes = new Uint8Array(PACKET_BYTES);
  for (let r = 0; r < repeats; r++) {
    for (let i = 0; i < count; i++) a.sendPacket(b.address, bytes);
    await drain(received, () => a.queuedPackets);
  }
  const share = received() / (count * repeats);
  await Promise.all([a.close(), b.close()]);
  return share;
}

/** Plain dgram sockets, 32 sends per turn, as fast as the loop goes: what Node itself does on this machine. */
async function rawBaseline(seconds: number): Promise<{ sent: number; loss: number }> {
  let received = 0;
  const a = await socket();
  const b = await socket(() => void received++);
  const port = b.address().port;
  const bytes = new Uint8Array(PACKET_BYTES);
  let sent = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 32; i++) a.send(bytes, port, HOST, () => {});
    sent += 32;
    await turn();
  }
  const elapsed = (performance.now() - start) / 1000;
  await drain(() => received, () => 0);
  await Promise.all([closeSocket(a), closeSocket(b)]);
  return { sent: sent / elapsed, loss: 1 - received / sent };
}

async function packetsPerSecond(seconds: number): Promise<void> {
  console.log(`(a) one transport pair, ${PACKET_BYTES} B datagrams, sender and receiver in this process`);
  console.log('');
  const bursts = 5;
  const paced = await burst(2_000, 32, bursts);
  const unpaced = await burst(2_000, UNPACED, bursts);
  console.log(`  burst of 2,000 datagrams in one synchronous loop (x${bursts}): received ${pct(paced)} paced (maxBurst 32), ${pct(unpaced)} unpaced`);
  console.log('');
  console.log(`  offered rate, ${seconds} s each | paced (maxBurst 32): received / loss | unpaced: received / loss`);
  let best = 0;
  let bestUnpaced = 0;
  for (const rate of RATES) {
    const p = await offer(rate, seconds, 32);
    const u = await offer(rate, seconds, UNPACED);
    const lossP = 1 - p.received / p.offered;
    const lossU = 1 - u.received / u.offered;
    if (lossP < LOSS_LIMIT) best = Math.max(best, rate);
    if (lossU < LOSS_LIMIT) bestUnpaced = Math.max(bestUnpaced, rate);
    const full = p.queueFull > 0 ? ` (${fmt(p.queueFull)} queue-full)` : '';
    console.log(
      `  ${fmt(rate).padStart(8)} pps | ${fmt(p.received / p.seconds).padStart(8)} pps / ${pct(lossP).padStart(8)}${full} | ${fmt(u.received / u.seconds).padStart(8)} pps / ${pct(lossU).padStart(8)}`,
    );
  }
  console.log('');
  const raw = await rawBaseline(seconds);
  console.log(`  baseline, plain node:dgram sockets (no transport), 32 sends per setImmediate turn as fast as possible: ${fmt(raw.sent)} pps sent, ${pct(raw.loss)} loss`);
  console.log(`  highest offered rate carried with < 0.1 % loss: paced ${fmt(best)} pps, unpaced ${fmt(bestUnpaced)} pps (paced ${vsTarget(best)})`);
  console.log('');
}

/** What the parent (sender) asks the receiver process; each request gets one reply. */
type ReceiverRequest = { readonly op: 'open'; readonly kind: 'transport' | 'dgram' } | { readonly op: 'finish' };
type ReceiverReply =
  | { readonly op: 'ready'; readonly address: string; readonly port: number }
  | { readonly op: 'result'; readonly received: number; readonly cpuMicros: number };

const RECEIVER_FLAG = '--pps-receiver';

/**
 * The receiving end in a child process: the same Node binary, execArgv (tsx's loader and
 * --conditions=@swim/source) and entry point (bench/loopback.ts, which sees the condition and does
 * not re-run itself), with an IPC channel for control. One request at a time.
 */
class ReceiverProcess {
  readonly #child: ChildProcess;
  #waiting: { resolve: (reply: ReceiverReply) => void; reject: (error: Error) => void } | undefined;

  constructor() {
    const entry = fileURLToPath(new URL('./loopback.ts', import.meta.url));
    this.#child = fork(entry, [RECEIVER_FLAG], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (reply: ReceiverReply) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.resolve(reply);
    });
    this.#child.on('exit', (code, signal) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(new Error(`receiver process exited (${signal ?? code})`));
    });
  }

  request<K extends ReceiverReply['op']>(request: ReceiverRequest, expect: K): Promise<Extract<ReceiverReply, { op: K }>> {
    return new Promise((resolve, reject) => {
      this.#waiting = {
        resolve: (reply) => (reply.op === expect ? resolve(reply as Extract<ReceiverReply, { op: K }>) : reject(new Error(`receiver replied ${reply.op}, not ${expect}`))),
        reject,
      };
      this.#child.send(request);
    });
  }

  /** Disconnecting the IPC channel lets the child's event loop empty, so it exits. */
  close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.disconnect();
    return exited;
  }
}

/** The child's side of ReceiverProcess: open a counting transport or plain socket, then drain, count and close. */
async function receiverProcess(): Promise<void> {
  const reply = (message: ReceiverReply): void => void process.send?.(message);
  let received = 0;
  let cpuBefore = process.cpuUsage();
  let close: (() => Promise<void>) | undefined;
  const count = (): void => void received++;
  process.on('message', (request: ReceiverRequest) => {
    void (async () => {
      if (request.op === 'open') {
        received = 0;
        if (request.kind === 'transport') {
          const t = await transport(undefined, count);
          close = () => t.close();
          reply({ op: 'ready', address: t.address, port: t.port });
        } else {
          const s = await socket(count);
          close = () => closeSocket(s);
          reply({ op: 'ready', address: `${HOST}:${s.address().port}`, port: s.address().port });
        }
        cpuBefore = process.cpuUsage();
      } else {
        await drain(() => received, () => 0);
        const cpu = process.cpuUsage(cpuBefore);
        await close?.();
        close = undefined;
        reply({ op: 'result', received, cpuMicros: cpu.user + cpu.system });
      }
    })();
  });
}

/**
 * Linux's machine-wide count of datagrams dropped because a socket's receive buffer was full
 * (RcvbufErrors in /proc/net/snmp); undefined elsewhere. Other processes' sockets count too.
 */
function rcvbufErrors(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((line) => line.startsWith('Udp: '));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const at = names.indexOf('RcvbufErrors');
    return at < 0 || values[at] === undefined ? undefined : Number(values[at]);
  } catch {
    return undefined;
  }
}

interface CrossResult {
  readonly offered: number;
  readonly received: number;
  readonly seconds: number;
  readonly queueFull: number;
  /** Receiver process CPU (user + system) per 100,000 datagrams received, ms. */
  readonly receiverCpuMsPer100k: number;
  /** Receive-buffer overflows on the machine during the step (see rcvbufErrors). */
  readonly rcvbufErrors: number | undefined;
}

/**
 * Offer `rate` packets per second for `seconds` from this process to the receiver process: through
 * a paced transport (maxBurst 32) with sendPacket, or a plain node:dgram socket with send.
 */
async function offerAcross(receiver: ReceiverProcess, kind: 'transport' | 'dgram', rate: number, seconds: number): Promise<CrossResult> {
  const to = await receiver.request({ op: 'open', kind }, 'ready');
  const overflowsBefore = rcvbufErrors();
  const bytes = new Uint8Array(PACKET_BYTES);
  const a = kind === 'transport' ? await transport(32) : undefined;
  const s = kind === 'dgram' ? await socket() : undefined;
  const send = a !== undefined ? () => a.sendPacket(to.address, bytes) : () => s!.send(bytes, to.port, HOST, () => {});
  const paced = await pace(rate, seconds, send);
  while ((a?.queuedPackets ?? 0) > 0) await turn(); // the transport's queue empties a turn at a time
  const result = await receiver.request({ op: 'finish' }, 'result');
  const overflowsAfter = rcvbufErrors();
  const queueFull = a?.counters.dropped['queue-full'] ?? 0;
  await (a !== undefined ? a.close() : closeSocket(s!));
  return {
    offered: paced.offered,
    received: result.received,
    seconds: paced.seconds,
    queueFull,
    receiverCpuMsPer100k: result.received > 0 ? (result.cpuMicros / 1000 / result.received) * 100_000 : 0,
    rcvbufErrors: overflowsBefore === undefined || overflowsAfter === undefined ? undefined : overflowsAfter - overflowsBefore,
  };
}

function readRmemMax(): string {
  try {
    return `${Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8')).toLocaleString('en-US')} B`;
  } catch {
    return 'unknown';
  }
}

/** Highest offered rate stepped to past RATES while the last step was lossless in some column. */
const MAX_CROSS_RATE = 400_000;

async function packetsPerSecondAcross(seconds: number): Promise<void> {
  console.log(`(a2) one transport pair, ${PACKET_BYTES} B datagrams, receiver in a child process (same Node and flags, IPC for control), sender in this one`);
  console.log('     Receiver CPU: process.cpuUsage in the child, user + system, from open to drained, per 100,000 datagrams received.');
  console.log('     (The sender polls every event-loop turn, as in (a), so it keeps one core busy at any rate.)');
  console.log('     rcvbuf: receive-buffer overflows during the step, machine-wide (RcvbufErrors, /proc/net/snmp). After a 1 s warm-up of each, not counted.');
  console.log(`     Receive buffers: the transport's default (recvBufferBytes 2 MiB, as memberlist) and the same for the plain socket; rmem_max ${readRmemMax()}.`);
  console.log('');
  console.log(`  offered rate, ${seconds} s each | transport, paced (maxBurst 32): received / loss | rcvbuf | receiver CPU | plain node:dgram: received / loss | rcvbuf | receiver CPU`);
  const receiver = new ReceiverProcess();
  let best = 0;
  let bestDgram = 0;
  let lastRate = 0;
  let lastLossless = false;
  /** Highest offered rate up to which every step was lossless (the search is not monotonic on a noisy machine). */
  let steady = 0;
  let steadyDgram = 0;
  let lostT = false;
  let lostD = false;
  try {
    await offerAcross(receiver, 'transport', RATES[0]!, 1);
    await offerAcross(receiver, 'dgram', RATES[0]!, 1);
    const rates = [...RATES];
    for (let i = 0; i < rates.length; i++) {
      const rate = rates[i]!;
      const t = await offerAcross(receiver, 'transport', rate, seconds);
      const d = await offerAcross(receiver, 'dgram', rate, seconds);
      const lossT = 1 - t.received / t.offered;
      const lossD = 1 - d.received / d.offered;
      if (lossT < LOSS_LIMIT) best = Math.max(best, rate);
      if (lossD < LOSS_LIMIT) bestDgram = Math.max(bestDgram, rate);
      lostT ||= lossT >= LOSS_LIMIT;
      lostD ||= lossD >= LOSS_LIMIT;
      if (!lostT) steady = rate;
      if (!lostD) steadyDgram = rate;
      lastRate = rate;
      lastLossless = lossT < LOSS_LIMIT || lossD < LOSS_LIMIT;
      if (i === rates.length - 1 && lastLossless && rate + 50_000 <= MAX_CROSS_RATE) rates.push(rate + 50_000);
      const full = t.queueFull > 0 ? ` (${fmt(t.queueFull)} queue-full)` : '';
      const ms = (x: number): string => `${fmt(x)} ms/100k`.padStart(13);
      const overflows = (r: CrossResult): string => (r.rcvbufErrors === undefined ? '?' : fmt(r.rcvbufErrors)).padStart(6);
      console.log(
        `  ${fmt(rate).padStart(8)} pps | ${fmt(t.received / t.seconds).padStart(8)} pps / ${pct(lossT).padStart(8)}${full} | ${overflows(t)} | ${ms(t.receiverCpuMsPer100k)} | ` +
          `${fmt(d.received / d.seconds).padStart(8)} pps / ${pct(lossD).padStart(8)} | ${overflows(d)} | ${ms(d.receiverCpuMsPer100k)}`,
      );
    }
  } finally {
    await receiver.close();
  }
  console.log('');
  const capped = lastLossless ? ` (${fmt(lastRate)} pps was the highest rate offered)` : '';
  console.log(`  highest offered rate carried with < 0.1 % loss across processes${capped}:`);
  const upTo = (rate: number): string => `every step lossless up to ${fmt(rate)} pps offered`;
  console.log(`    transport, paced:  ${fmt(best).padStart(8)} pps (${vsTarget(best)}; ${upTo(steady)})`);
  console.log(`    plain node:dgram:  ${fmt(bestDgram).padStart(8)} pps (${vsTarget(bestDgram)}; ${upTo(steadyDgram)})`);
  console.log(`    transport / plain node:dgram: ${bestDgram > 0 ? (best / bestDgram).toFixed(2) : 'n/a'}`);
  console.log('');
}

interface StepResult extends WindowResult {
  readonly members: number;
  readonly convergeMs: number;
  readonly joinRetries: number;
  readonly converged: boolean;
}

/** One step: grow to n, converge, settle, measure; undefined if growing took longer than convergeTimeoutS. */
async function step(cluster: Cluster, n: number, settleS: number, measureS: number, convergeTimeoutS: number): Promise<StepResult | undefined> {
  const grow = await growAndConverge(cluster, n, convergeTimeoutS);
  if (!grow.grown) return undefined;
  await sleep(settleS * 1000);
  const window = await measureWindow(cluster, measureS);
  return { ...window, members: n, convergeMs: grow.convergeMs, joinRetries: grow.joinRetries, converged: grow.converged };
}

async function hostedMembers(sizes: readonly number[], settleS: number, measureS: number): Promise<void> {
  console.log(`(b) LAN-preset @swim/runtime members over real UDP + TCP on ${HOST}, all in this process`);
  console.log(`    grown step by step (10 joins at a time, each through member 0 and one random member), converged (every member`);
  console.log(`    sees all alive), then ${settleS} s settle and ${measureS} s measured. Event-loop delay: perf_hooks.monitorEventLoopDelay,`);
  console.log(`    resolution ${LAG_RESOLUTION_MS} ms, minus the resolution; CPU: process.cpuUsage, user + system, over the measured seconds`);
  console.log('');
  console.log('  members | grown+converged | loop delay p50 / p99 / max | CPU (of one core) | CPU per member | UDP pps | UDP loss | suspect / dead events');
  const cluster = new Cluster();
  let best = 0;
  try {
    for (const n of sizes) {
      const had = cluster.members.length;
      const r = await step(cluster, n, settleS, measureS, 90);
      if (r === undefined) {
        console.log(
          `  ${fmt(n).padStart(7)} | growing from ${fmt(had)} did not finish in 90 s: ${fmt(cluster.members.length)} members created, ` +
            `${cluster.joinRetries} join attempts timed out, ${cluster.joinFailures} members gave up joining; stopped`,
        );
        break;
      }
      const ok = r.converged && r.lagP99Ms < LAG_LIMIT_MS;
      if (ok) best = Math.max(best, n);
      console.log(
        `  ${fmt(n).padStart(7)} | ${(r.converged ? `${fmt(r.convergeMs / 1000, 1)} s` : `NOT in ${fmt(r.convergeMs / 1000, 0)} s`).padStart(15)} | ` +
          `${fmt(r.lagP50Ms, 1)} / ${fmt(r.lagP99Ms, 1)} / ${fmt(r.lagMaxMs, 1)} ms`.padStart(26) +
          ` | ${pct(r.cpuShare).padStart(17)} | ${`${fmt(r.cpuMsPerMemberSecond, 3)} ms/s`.padStart(14)} | ${fmt(r.packetsPerSecond).padStart(7)} | ${pct(r.udpLoss).padStart(8)} | ${r.suspects} / ${r.deaths}` +
          (r.queueFull > 0 ? ` (${r.queueFull} queue-full)` : '') +
          (r.joinRetries > 0 ? ` (${r.joinRetries} joins retried)` : '') +
          (ok ? '' : '  <- over the limit'),
      );
    }
  } finally {
    await cluster.close();
  }
  console.log('');
  console.log(`  most members with loop delay p99 < ${LAG_LIMIT_MS} ms: ${best > 0 ? fmt(best) : 'none of the sizes tried'} (target 1,000: ${best >= 1_000 ? 'met' : 'MISSED'})`);
}

export async function run(args: readonly string[]): Promise<void> {
  if (args.includes(RECEIVER_FLAG)) return receiverProcess();
  const option = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const seconds = Number(option('seconds') ?? 3);
  const sizes = (option('sizes') ?? '100,250,500,750,1000').split(',').map(Number);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log('@swim/transport-udp loopback benchmark');
  console.log(`command: cd packages/transport-udp && npx tsx bench/loopback.ts ${args.join(' ')}`.trimEnd());
  console.log(`node ${process.version} (${process.platform}-${process.arch}), ${cpus().length} x ${cpu.trim()}, one thread`);
  console.log('');
  const crossOnly = args.includes('--pps-processes');
  if (!args.includes('--members-only') && !crossOnly) await packetsPerSecond(seconds);
  if (!args.includes('--members-only')) await packetsPerSecondAcross(seconds);
  if (!args.includes('--pps-only') && !crossOnly) await hostedMembers(sizes, 5, 10);
}
