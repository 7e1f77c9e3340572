/**
 * The measurements behind bench/loopback.ts (which makes sure the workspace sources are used).
 */
import { createSocket, type Socket } from 'node:dgram';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Member } from '@swim/runtime';
import { createUdpTransport, type UdpTransport } from '../src/index.js';

const HOST = '127.0.0.1';
const PACKET_BYTES = 300;
/** Loss below this counts as none (the brief: < 0.1 %). */
const LOSS_LIMIT = 0.001;
const LAG_LIMIT_MS = 20;
/** monitorEventLoopDelay samples with a timer of this period and records whole periods: the delay is a sample minus this. */
const LAG_RESOLUTION_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (x: number): string => `${(x * 100).toFixed(x < 0.01 ? 3 : 1)} %`;

const UNPACED = 2 ** 31 - 1;

async function pair(maxBurst: number): Promise<{ a: UdpTransport; b: UdpTransport; received: () => number }> {
  const a = await createUdpTransport({ bind: { host: HOST, port: 0 }, maxBurst });
  const b = await createUdpTransport({ bind: { host: HOST, port: 0 } });
  let received = 0;
  const ignore = { packet: () => {}, stream: (_f: string, _b: Uint8Array, reply: (bytes: Uint8Array | undefined) => void) => reply(undefined) };
  a.listen(ignore);
  b.listen({ ...ignore, packet: () => void received++ });
  return { a, b, received: () => received };
}

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

/** Offer `rate` packets per second from a to b for `seconds`, sending what is owed every event-loop turn. */
async function offer(rate: number, seconds: number, maxBurst: number): Promise<RateResult> {
  const { a, b, received } = await pair(maxBurst);
  const bytes = new Uint8Array(PACKET_BYTES);
  const start = performance.now();
  const end = start + seconds * 1000;
  let offered = 0;
  for (;;) {
    const now = performance.now();
    if (now >= end) break;
    const owed = Math.min(Math.floor(((now - start) / 1000) * rate) - offered, 4096);
    for (let i = 0; i < owed; i++) a.sendPacket(b.address, bytes);
    offered += Math.max(0, owed);
    await turn();
  }
  const elapsed = (performance.now() - start) / 1000;
  await drain(received, () => a.queuedPackets);
  const result = { offered, sent: a.counters.packetsSent, received: received(), seconds: elapsed, queueFull: a.counters.dropped['queue-full'] };
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
  const bind = (socket: Socket): Promise<void> => new Promise((resolve) => socket.bind(0, HOST, () => resolve()));
  const a = createSocket('udp4');
  const b = createSocket('udp4');
  await Promise.all([bind(a), bind(b)]);
  let received = 0;
  b.on('message', () => void received++);
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
  await Promise.all([new Promise<void>((resolve) => a.close(() => resolve())), new Promise<void>((resolve) => b.close(() => resolve()))]);
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
  for (const rate of [25_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000, 150_000]) {
    const p = await offer(rate, seconds, 32);
    const u = await offer(rate, seconds, UNPACED);
    const lossP = 1 - p.received / p.offered;
    const lossU = 1 - u.received / u.offered;
    if (lossP < LOSS_LIMIT) best = Math.max(best, p.received / p.seconds);
    if (lossU < LOSS_LIMIT) bestUnpaced = Math.max(bestUnpaced, u.received / u.seconds);
    const full = p.queueFull > 0 ? ` (${fmt(p.queueFull)} queue-full)` : '';
    console.log(
      `  ${fmt(rate).padStart(8)} pps | ${fmt(p.received / p.seconds).padStart(8)} pps / ${pct(lossP).padStart(8)}${full} | ${fmt(u.received / u.seconds).padStart(8)} pps / ${pct(lossU).padStart(8)}`,
    );
  }
  console.log('');
  const raw = await rawBaseline(seconds);
  console.log(`  baseline, plain node:dgram sockets (no transport), 32 sends per setImmediate turn as fast as possible: ${fmt(raw.sent)} pps sent, ${pct(raw.loss)} loss`);
  console.log(`  highest rate with < 0.1 % loss: paced ${fmt(best)} pps, unpaced ${fmt(bestUnpaced)} pps (target 100,000 pps: ${best >= 100_000 ? 'met' : 'MISSED'})`);
  console.log('');
}

interface StepResult {
  readonly members: number;
  readonly convergeMs: number;
  readonly joinRetries: number;
  readonly converged: boolean;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly cpuShare: number;
  readonly cpuMsPerMemberSecond: number;
  readonly packetsPerSecond: number;
  readonly udpLoss: number;
  readonly queueFull: number;
  readonly suspects: number;
  readonly deaths: number;
}

class Cluster {
  readonly members: Member[] = [];
  readonly transports: UdpTransport[] = [];
  suspects = 0;
  deaths = 0;
  joinRetries = 0;
  joinFailures = 0;

  /** Add members up to `to`; false when `deadline` (performance.now()) passed first. */
  async grow(to: number, deadline: number): Promise<boolean> {
    const batch = 10;
    while (this.members.length < to) {
      if (performance.now() > deadline) return false;
      const adding = Math.min(batch, to - this.members.length);
      const fresh: Member[] = [];
      for (let i = 0; i < adding; i++) {
        const transport = await createUdpTransport({ bind: { host: HOST, port: 0 } });
        const member = new Member({ name: `m${this.members.length}`, transport });
        member.on('suspect', () => void this.suspects++);
        member.on('dead', () => void this.deaths++);
        this.transports.push(transport);
        this.members.push(member);
        fresh.push(member);
      }
      const first = this.members[0]!;
      await Promise.all(fresh.filter((m) => m !== first).map((m) => this.#join(m, adding)));
      await sleep(100); // let the join gossip spread a little before the next batch
    }
    return true;
  }

  /** Join through member 0 and a random older member; retried (and counted) if every seed timed out. */
  async #join(member: Member, adding: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const other = this.members[Math.floor(Math.random() * (this.members.length - adding))]!;
      const seeds = [...new Set([this.members[0]!.address, other.address])].filter((a) => a !== member.address);
      try {
        await member.join(seeds);
        return;
      } catch {
        this.joinRetries++;
        if (attempt >= 2) return void this.joinFailures++;
      }
    }
  }

  converged(): boolean {
    const n = this.members.length;
    return this.members.every((m) => m.members().length === n);
  }

  udp(): { sent: number; received: number; queueFull: number } {
    let sent = 0;
    let received = 0;
    let queueFull = 0;
    for (const t of this.transports) {
      sent += t.counters.packetsSent;
      received += t.counters.packetsReceived;
      queueFull += t.counters.dropped['queue-full'];
    }
    return { sent, received, queueFull };
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }
}

/** One step: grow to n, converge, settle, measure; undefined if growing took longer than convergeTimeoutS. */
async function step(cluster: Cluster, n: number, settleS: number, measureS: number, convergeTimeoutS: number): Promise<StepResult | undefined> {
  const growStart = performance.now();
  const retries = cluster.joinRetries;
  const grown = await cluster.grow(n, growStart + convergeTimeoutS * 1000);
  if (!grown) return undefined;
  let converged = cluster.converged();
  while (!converged && performance.now() - growStart < convergeTimeoutS * 1000) {
    await sleep(1_000);
    converged = cluster.converged();
  }
  const convergeMs = performance.now() - growStart;
  await sleep(settleS * 1000);

  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  const suspects = cluster.suspects;
  const deaths = cluster.deaths;
  const udpBefore = cluster.udp();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  histogram.enable();
  await sleep(measureS * 1000);
  histogram.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - start) / 1000;
  const udpAfter = cluster.udp();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const sent = udpAfter.sent - udpBefore.sent;
  const received = udpAfter.received - udpBefore.received;
  return {
    members: n,
    convergeMs,
    joinRetries: cluster.joinRetries - retries,
    converged,
    lagP50Ms: Math.max(0, histogram.percentile(50) / 1e6 - LAG_RESOLUTION_MS),
    lagP99Ms: Math.max(0, histogram.percentile(99) / 1e6 - LAG_RESOLUTION_MS),
    lagMaxMs: Math.max(0, histogram.max / 1e6 - LAG_RESOLUTION_MS),
    cpuShare: cpuMs / (seconds * 1000),
    cpuMsPerMemberSecond: cpuMs / seconds / n,
    packetsPerSecond: sent / seconds,
    udpLoss: sent > 0 ? Math.max(0, 1 - received / sent) : 0,
    queueFull: udpAfter.queueFull - udpBefore.queueFull,
    suspects: cluster.suspects - suspects,
    deaths: cluster.deaths - deaths,
  };
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
  const option = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const seconds = Number(option('seconds') ?? 3);
  const sizes = (option('sizes') ?? '100,250,500,750,1000').split(',').map(Number);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log('@swim/transport-udp loopback benchmark');
  console.log(`command: cd packages/transport-udp && npx tsx bench/loopback.ts ${args.join(' ')}`.trimEnd());
  console.log(`node ${process.version} (${process.platform}-${process.arch}), ${cpus().length} x ${cpu.trim()}, one thread`);
  console.log('');
  if (!args.includes('--members-only')) await packetsPerSecond(seconds);
  if (!args.includes('--pps-only')) await hostedMembers(sizes, 5, 10);
}
