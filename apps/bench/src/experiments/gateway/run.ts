/**
 * One size of `pnpm bench gateway`: fresh processes (gateway, agents, client processes and the
 * process of the tabs to cut), the join phase at the rate, the quiet window, then a burst, clean
 * closes and a network cut. Every wait is bounded by what is left of the size's time bound, so that
 * a size that cannot finish ends and says where.
 */
import { loadavg } from 'node:os';
import { Child } from './child.js';
import { BenchCluster, delay, type GatewaySample } from './cluster.js';
import { sizeTimeoutMs } from './flags.js';
import type { ClientBytes, GatewayParams, GatewaySizeRun, PhaseFigures, ProcessWindow } from './result.js';
import { falseEvents, pick, relayDelta, share, tabNames, tally, timedText } from './summary.js';

interface ClientStatus {
  readonly joined: string[];
  readonly pending: number;
  readonly failures: string[];
}

/** The client processes, asked together. */
class Clients {
  constructor(readonly all: readonly Child[]) {}

  static async start(count: number, url: string, token: string, label: string, detached = false): Promise<Clients> {
    return new Clients(await Promise.all(Array.from({ length: count }, (_, i) => Child.start(`${label}-${i}`, './clients-process.ts', { url, token }, detached))));
  }

  /** Join `names` in this order, one every 1000/rate ms from `startAt`, spread round-robin over the processes. */
  async join(names: readonly string[], rate: number, startAt: number): Promise<void> {
    const schedule = names.map((name, i) => ({ name, at: startAt + Math.round((i * 1000) / rate) }));
    await Promise.all(share(schedule, this.all.length).map((part, i) => this.all[i]!.ask('join', { schedule: part })));
  }

  async status(): Promise<ClientStatus> {
    const all = await Promise.all(this.all.map((c) => c.ask<ClientStatus>('status', {}, 60_000)));
    return { joined: all.flatMap((s) => s.joined), pending: all.reduce((n, s) => n + s.pending, 0), failures: all.flatMap((s) => s.failures) };
  }

  /** Wait until no join is pending (at most `limitMs`). */
  async settled(limitMs: number): Promise<ClientStatus> {
    const until = Date.now() + limitMs;
    for (;;) {
      const status = await this.status();
      if (status.pending === 0 || Date.now() > until) return status;
      await delay(250);
    }
  }

  async windows(reset: boolean): Promise<{ windows: ProcessWindow[]; bytes: ClientBytes }> {
    const all = await Promise.all(this.all.map((c) => c.ask<{ window: ProcessWindow; bytes: ClientBytes }>('window', { reset })));
    return {
      windows: all.map((a) => a.window),
      bytes: { bytesSent: all.reduce((n, a) => n + a.bytes.bytesSent, 0), bytesReceived: all.reduce((n, a) => n + a.bytes.bytesReceived, 0) },
    };
  }

  /** Leave and close these tabs, as leaveOnPageHide does; resolves with when the first leave was called. */
  async leave(names: readonly string[]): Promise<number> {
    const ats = await Promise.all(this.all.map((c) => c.ask<{ at: number }>('leave', { names })));
    return Math.min(...ats.map((a) => a.at));
  }

  kill(): Promise<unknown> {
    return Promise.all(this.all.map((c) => c.kill()));
  }
}

/** Where a phase starts: the gateway's sample and the clients' byte totals at its reset. */
interface PhaseStart {
  readonly gateway: GatewaySample;
  readonly bytes: ClientBytes;
}

async function resetAll(cluster: BenchCluster, clients: Clients): Promise<PhaseStart> {
  const [gateway, , c] = await Promise.all([cluster.gatewayWindow(true), cluster.agentsWindow(true), clients.windows(true)]);
  return { gateway, bytes: c.bytes };
}

async function endPhase(cluster: BenchCluster, clients: Clients, start: PhaseStart, members: number): Promise<{ figures: PhaseFigures; next: PhaseStart }> {
  const [gateway, agents, c] = await Promise.all([cluster.gatewayWindow(true), cluster.agentsWindow(true), clients.windows(true)]);
  const figures: PhaseFigures = {
    gateway: gateway.window,
    relay: relayDelta(start.gateway.counters, gateway.counters),
    bytes: { bytesSent: c.bytes.bytesSent - start.bytes.bytesSent, bytesReceived: c.bytes.bytesReceived - start.bytes.bytesReceived },
    agents,
    agentMembers: cluster.agentCount,
    clients: c.windows,
    members,
  };
  return { figures, next: { gateway, bytes: c.bytes } };
}

export async function runGatewaySize(params: GatewayParams, size: number, log: (line: string) => void): Promise<GatewaySizeRun> {
  const started = Date.now();
  const deadline = started + sizeTimeoutMs(params, size);
  const left = (capMs: number) => Math.max(0, Math.min(capMs, deadline - Date.now()));
  const loadStart = loadavg()[0]!;
  const maxSessions = size + params.burst + params.cutTabs + 64;
  let cluster: BenchCluster | undefined;
  let clients: Clients | undefined;
  let cutProcess: Clients | undefined;
  const run: { -readonly [K in keyof GatewaySizeRun]: GatewaySizeRun[K] } = {
    clients: size,
    wallMs: 0,
    joined: 0,
    joinFailures: {},
    allAliveMs: undefined,
    rssBeforeBytes: 0,
    join: undefined,
    quiet: undefined,
    falseEvents: [],
    burst: undefined,
    close: undefined,
    cut: undefined,
    load: [loadStart, loadStart],
  };
  const gone = new Map<string, number>();
  let joinStart = started;
  try {
    cluster = await BenchCluster.start(params.udpAgents, maxSessions);
    clients = await Clients.start(params.clientProcesses, cluster.url, 'bench-gateway-join-token', 'clients');
    cutProcess = await Clients.start(1, cluster.url, 'bench-gateway-join-token', 'cut', true);
    // What the gateway holds with no client: the base of RSS per member.
    await delay(2000);
    run.rssBeforeBytes = (await cluster.gatewayWindow(false)).window.rssBytes;

    // Join at the rate, in an order (and so a process) the seed picks.
    const names = pick(tabNames('tab', size), size, params.seed);
    let phase = await resetAll(cluster, clients);
    joinStart = Date.now() + 200;
    log(`${size}: joining at ${params.joinRate}/s…`);
    await clients.join(names, params.joinRate, joinStart);
    const status = await clients.settled(left((size / params.joinRate) * 1000 + 60_000));
    run.joined = status.joined.length;
    run.joinFailures = tally(status.failures);
    if (status.pending > 0) run.joinFailures = { ...run.joinFailures, [`still joining at the bound`]: status.pending };
    const alive = await cluster.waitSeen(status.joined, 'alive', joinStart, left(60_000));
    run.allAliveMs = alive.ms;
    log(`${size}: ${run.joined} joined, ${alive.ms === undefined ? alive.note : `all alive at every agent after ${(alive.ms / 1000).toFixed(1)} s`}`);
    const cutNames = tabNames('cut', params.cutTabs);
    await cutProcess.join(cutNames, params.joinRate, Date.now());
    const cutJoined = (await cutProcess.settled(left(30_000))).joined;
    const join = await endPhase(cluster, clients, phase, run.joined);
    run.join = join.figures;
    phase = join.next;

    log(`${size}: quiet for ${params.holdSeconds} s…`);
    await delay(left(params.holdSeconds * 1000));
    // The cut tabs are members too while it is quiet (their process is not measured: it is not a client process).
    const quiet = await endPhase(cluster, clients, phase, run.joined + cutJoined.length);
    run.quiet = quiet.figures;

    // A burst: tabs joining within one second.
    const burstNames = tabNames('burst', params.burst);
    const burstStart = Date.now() + 100;
    await clients.join(burstNames, params.burst, burstStart);
    const burstJoined = (await clients.settled(left(30_000))).joined.filter((n) => n.startsWith('burst-'));
    run.burst = { ...(await cluster.waitSeen(burstJoined, 'alive', burstStart, left(60_000))), tabs: burstJoined.length };
    log(`${size}: burst of ${burstJoined.length}: ${timedText(run.burst)}`);

    // Clean closes: leave, then close.
    const closeNames = pick(status.joined, params.closeTabs, params.seed + 1);
    const closeAt = await clients.leave(closeNames);
    for (const name of closeNames) gone.set(name, closeAt);
    run.close = await cluster.waitSeen(closeNames, 'left', closeAt, left(60_000));
    log(`${size}: close → left: ${timedText(run.close)}`);

    // The cut: the process holding the cut tabs stops (SIGSTOP); its sockets stay open and silent.
    const cutAt = Date.now();
    cutProcess.all[0]!.signal('SIGSTOP');
    for (const name of cutJoined) gone.set(name, cutAt);
    run.cut = cutJoined.length === 0 ? { tabs: 0, ms: undefined, note: 'no cut tab joined' } : await cluster.waitSeen(cutJoined, 'dead', cutAt, left(90_000));
    log(`${size}: cut → dead: ${timedText(run.cut)}`);
  } catch (error) {
    run.error = (error as Error).message;
    log(`${size}: stopped: ${run.error}`);
  } finally {
    try {
      if (cluster !== undefined) run.falseEvents = falseEvents(await cluster.events(joinStart), gone);
    } catch (error) {
      run.error ??= `events not read: ${(error as Error).message}`;
    }
    await Promise.all([clients?.kill(), cutProcess?.kill(), cluster?.stop()]);
  }
  run.wallMs = Date.now() - started;
  run.load = [loadStart, loadavg()[0]!];
  return run;
}
