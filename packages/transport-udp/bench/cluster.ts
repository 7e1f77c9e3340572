/**
 * LAN-preset @swim/runtime members over real UDP + TCP on 127.0.0.1, all in one process: formed
 * (pre-formed: every member preloaded with all; or grown ten joins at a time), converged, then
 * measured over a window (CPU, event-loop delay, packets, suspect and dead events, RSS). bench/loopback-run.ts measures how many members one process hosts with it;
 * apps/bench's crypto experiment measures the same cluster with and without encryption (`wrap`).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Member, type MemberOptions, type Transport } from '@swim/runtime';
import { createUdpTransport, type UdpTransport } from '../src/index.js';
import { StartGate } from './start-gate.js';

export const HOST = '127.0.0.1';
/** monitorEventLoopDelay samples with a timer of this period and records whole periods: the delay is a sample minus this. */
export const LAG_RESOLUTION_MS = 10;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** One event-loop turn: timers and I/O due meanwhile run first. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Longest run of preloads between two event-loop turns while forming a pre-formed cluster. */
const PRELOAD_SLICE_MS = 20;
/**
 * Pre-formed members start this far apart (2,000 members: over 10 s). Each member announces its
 * own alive when it starts, retransmitted retransmitLimit times (16 at 2,000 members) to 3 members
 * a gossip round: 2,000 members starting in the same second sent 30,000 packets in it, the loop fell
 * past the 500 ms probe timeout and the suspicions that followed fed themselves.
 */
export const START_SPREAD_PER_MEMBER_MS = 5;

/**
 * How a cluster is formed. `pre-formed`: every member is created first (each binding its own
 * port), then every member preloads the whole list (`Member.preload`), so the cluster is converged
 * at once and quiet once each member's own first alive is out. `joins`: ten joins at a time, each
 * newcomer gossiped to every member (n² updates, as memberlist aliveNode re-gossips every member it
 * learns), which is what the cluster costs to grow, not to run.
 */
export const FORMATIONS = ['pre-formed', 'joins'] as const;
export type Formation = (typeof FORMATIONS)[number];

export interface ClusterOptions {
  /** What each member runs on, given its UDP transport (default: the UDP transport itself). */
  readonly wrap?: (udp: UdpTransport) => Transport;
  /** Pause after each batch of ten joins, to let the join gossip spread (default 100 ms). */
  readonly batchPauseMs?: number;
  /** Member settings over the LAN preset (default none: the preset as it is). */
  readonly config?: MemberOptions['config'];
  /** Pre-formed members start this far apart (default START_SPREAD_PER_MEMBER_MS). */
  readonly startSpreadPerMemberMs?: number;
}

export class Cluster {
  readonly members: Member[] = [];
  readonly transports: UdpTransport[] = [];
  suspects = 0;
  deaths = 0;
  joinRetries = 0;
  joinFailures = 0;
  readonly #wrap: (udp: UdpTransport) => Transport;
  readonly #batchPauseMs: number;
  readonly #config: MemberOptions['config'] | undefined;
  readonly #startSpreadMs: number;

  constructor(options: ClusterOptions = {}) {
    this.#startSpreadMs = options.startSpreadPerMemberMs ?? START_SPREAD_PER_MEMBER_MS;
    this.#wrap = options.wrap ?? ((udp) => udp);
    this.#batchPauseMs = options.batchPauseMs ?? 100;
    this.#config = options.config;
  }

  /** Add members up to `to`; false when `deadline` (performance.now()) passed first. */
  async grow(to: number, deadline: number): Promise<boolean> {
    const batch = 10;
    while (this.members.length < to) {
      if (performance.now() > deadline) return false;
      const adding = Math.min(batch, to - this.members.length);
      const fresh: Member[] = [];
      for (let i = 0; i < adding; i++) fresh.push(await this.#add());
      const first = this.members[0]!;
      await Promise.all(fresh.filter((m) => m !== first).map((m) => this.#join(m, adding)));
      await sleep(this.#batchPauseMs); // let the join gossip spread a little before the next batch
    }
    return true;
  }

  /**
   * Add members up to `to`, then preload every member with every member (name, real address,
   * incarnation): converged at once, nothing gossiped but each member's own alive. Members already
   * there keep what they hold and preload only the newcomers. False when `deadline` passed first.
   *
   * Each newcomer runs on a {@link StartGate}: it answers what it receives but fires no timer (no
   * probe, gossip or push-pull) until every member is preloaded, so the formation sends nothing and
   * the cluster starts converged; then the newcomers start START_SPREAD_PER_MEMBER_MS apart. The
   * preloads are spread over event-loop turns (a slice of at most PRELOAD_SLICE_MS each) so that
   * members already running, and the process's own timers, keep their pace: preloading is about
   * 3 µs per entry, seconds at 1,000 members and more (1,000,000 entries).
   */
  async preform(to: number, deadline: number): Promise<boolean> {
    const gates: StartGate[] = [];
    while (this.members.length < to) {
      if (performance.now() > deadline) return false;
      const gate = new StartGate();
      gates.push(gate);
      await this.#add(gate);
    }
    const everyone = this.members.map((m) => ({ name: m.name, address: m.address, incarnation: m.incarnation }));
    let sliceStart = performance.now();
    for (const member of this.members) {
      member.preload(everyone);
      if (performance.now() - sliceStart >= PRELOAD_SLICE_MS) {
        await turn();
        sliceStart = performance.now();
      }
    }
    // Start them apart, as members of a real cluster start (never all in one second).
    const opening = performance.now();
    for (let i = 0; i < gates.length; i++) {
      const due = opening + i * this.#startSpreadMs;
      if (performance.now() < due) await sleep(due - performance.now());
      gates[i]!.open();
    }
    return true;
  }

  /** A new member on a transport of its own (a UDP socket and a TCP listener on one free port). */
  async #add(clock?: StartGate): Promise<Member> {
    const udp = await createUdpTransport({ bind: { host: HOST, port: 0 } });
    const member = new Member({
      name: `m${this.members.length}`,
      transport: this.#wrap(udp),
      ...(clock === undefined ? {} : { clock }),
      ...(this.#config === undefined ? {} : { config: this.#config }),
    });
    member.on('suspect', () => void this.suspects++);
    member.on('dead', () => void this.deaths++);
    this.transports.push(udp);
    this.members.push(member);
    return member;
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

  /**
   * Every member sees every member alive. Counted, not listed: a view per member held is n² objects
   * a check (25 million at 5,000 members), seconds of a loop that must answer probes meanwhile.
   */
  converged(): boolean {
    const n = this.members.length;
    return this.members.every((m) => m.memberCounts().alive === n);
  }

  udp(): { sent: number; bytesSent: number; received: number; queueFull: number } {
    let sent = 0;
    let bytesSent = 0;
    let received = 0;
    let queueFull = 0;
    for (const t of this.transports) {
      sent += t.counters.packetsSent;
      bytesSent += t.counters.bytesSent;
      received += t.counters.packetsReceived;
      queueFull += t.counters.dropped['queue-full'];
    }
    return { sent, bytesSent, received, queueFull };
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }
}

export interface GrowResult {
  readonly formation: Formation;
  /** False when growing took longer than the timeout (then nothing was measured). */
  readonly grown: boolean;
  readonly converged: boolean;
  /** From the first member created (or join) of this step to converged (or to the timeout). */
  readonly convergeMs: number;
  /** Of convergeMs: creating the members and preloading them (pre-formed), or growing them by joins. */
  readonly formMs: number;
  readonly joinRetries: number;
}

/** Form n members (grow by joins unless told), then wait (checking every second) until converged; both within `convergeTimeoutS`. */
export async function growAndConverge(cluster: Cluster, n: number, convergeTimeoutS: number, formation: Formation = 'joins'): Promise<GrowResult> {
  const growStart = performance.now();
  const retries = cluster.joinRetries;
  const deadline = growStart + convergeTimeoutS * 1000;
  const grown = formation === 'pre-formed' ? await cluster.preform(n, deadline) : await cluster.grow(n, deadline);
  const formMs = performance.now() - growStart;
  const result = (converged: boolean): GrowResult => ({ formation, grown, converged, convergeMs: performance.now() - growStart, formMs, joinRetries: cluster.joinRetries - retries });
  if (!grown) return result(false);
  let converged = cluster.converged();
  while (!converged && performance.now() < deadline) {
    await sleep(1_000);
    converged = cluster.converged();
  }
  return result(converged);
}

export interface WindowResult {
  readonly seconds: number;
  /**
   * Event-loop delay over the window, ms (monitorEventLoopDelay minus its resolution); the max is at
   * least how late the window's own end came. NaN (no figure) when the histogram took no sample.
   */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** Samples the delay histogram took (a 5,000-member window that overran 10 s to 50 s reported none). */
  readonly lagSamples: number;
  /** process.cpuUsage, user + system (every thread of the process), ms. */
  readonly cpuMs: number;
  /** cpuMs over the window's wall time: 1 = one core busy. */
  readonly cpuShare: number;
  readonly cpuMsPerMemberSecond: number;
  readonly packetsSent: number;
  readonly packetsPerSecond: number;
  /** Mean datagram size sent, bytes. */
  readonly bytesPerPacket: number;
  readonly udpLoss: number;
  readonly queueFull: number;
  readonly suspects: number;
  readonly deaths: number;
  /** The process's resident set at the end of the window, bytes. */
  readonly rssBytes: number;
}

/** Measure the running cluster for `seconds`: nothing is added or removed meanwhile. */
export async function measureWindow(cluster: Cluster, seconds: number): Promise<WindowResult> {
  const n = cluster.members.length;
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  const suspects = cluster.suspects;
  const deaths = cluster.deaths;
  const udpBefore = cluster.udp();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  histogram.enable();
  await sleep(seconds * 1000);
  histogram.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = (performance.now() - start) / 1000;
  const udpAfter = cluster.udp();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const sent = udpAfter.sent - udpBefore.sent;
  const received = udpAfter.received - udpBefore.received;
  const sampled = histogram.count > 0;
  const lag = (ms: number) => (sampled ? Math.max(0, ms - LAG_RESOLUTION_MS) : Number.NaN);
  // The window's end is a timer too: how late it fired is a delay the loop had, sampled or not.
  const endLateMs = Math.max(0, (elapsed - seconds) * 1000);
  return {
    seconds: elapsed,
    lagP50Ms: lag(histogram.percentile(50) / 1e6),
    lagP99Ms: lag(histogram.percentile(99) / 1e6),
    lagMaxMs: Math.max(sampled ? lag(histogram.max / 1e6) : 0, endLateMs),
    lagSamples: histogram.count,
    cpuMs,
    cpuShare: cpuMs / (elapsed * 1000),
    cpuMsPerMemberSecond: cpuMs / elapsed / n,
    packetsSent: sent,
    packetsPerSecond: sent / elapsed,
    bytesPerPacket: sent > 0 ? (udpAfter.bytesSent - udpBefore.bytesSent) / sent : 0,
    udpLoss: sent > 0 ? Math.max(0, 1 - received / sent) : 0,
    queueFull: udpAfter.queueFull - udpBefore.queueFull,
    suspects: cluster.suspects - suspects,
    deaths: cluster.deaths - deaths,
    rssBytes: process.memoryUsage.rss(),
  };
}
