/** What `pnpm bench gateway` measures: per number of browser members, one gateway process's cost and the cluster's view of the tabs. */

export interface GatewayParams {
  /** Browser members per run, one run after the other with fresh processes. */
  readonly sizes: readonly number[];
  /** Browser members joining per second during the join phase. */
  readonly joinRate: number;
  /** The quiet measurement window once every member joined, seconds. */
  readonly holdSeconds: number;
  /** Processes the Node browser members are shared between. */
  readonly clientProcesses: number;
  /** UDP members (lan preset) in the agents' process. */
  readonly udpAgents: number;
  /** Picks which tabs close and which client process each tab lives in. */
  readonly seed: number;
  /** Real Chromium pages run beside (0: none). */
  readonly chromiumTabs: number;
  /** Tabs joined within one second after the quiet window. */
  readonly burst: number;
  /** Tabs closed cleanly (leave, then close), and tabs whose network is cut, per run. */
  readonly closeTabs: number;
  readonly cutTabs: number;
  /** Bound on one run, seconds: a size that cannot finish ends here. */
  readonly sizeTimeoutSeconds: number;
}

/** One process's cost over a window, as its own probe measured it. */
export interface ProcessWindow {
  readonly seconds: number;
  /** User + system CPU time, ms. */
  readonly cpuMs: number;
  /** Event-loop delay beyond the 10 ms resolution, ms (NaN when the histogram took no sample). */
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
  readonly rssBytes: number;
}

/** The gateway's counters that matter here (a subset of WsGatewayCounters). */
export interface RelayCounts {
  readonly packetsIn: number;
  readonly packetsOut: number;
  readonly packetsDropped: number;
  readonly welcomed: number;
  readonly refusedCapacity: number;
  readonly refusedIpLimit: number;
  readonly refusedSessions: number;
  readonly helloTimeouts: number;
  readonly joinTimeouts: number;
  readonly rateLimited: number;
  readonly internalErrors: number;
}

/** Payload bytes the browser members sent to and received from the gateway over a window (the client counters, summed). */
export interface ClientBytes {
  readonly bytesSent: number;
  readonly bytesReceived: number;
}

/** A phase (join, quiet) seen from every process. */
export interface PhaseFigures {
  readonly gateway: ProcessWindow;
  readonly relay: RelayCounts;
  readonly bytes: ClientBytes;
  /** The agents' process, and how many UDP members it holds. */
  readonly agents: ProcessWindow;
  readonly agentMembers: number;
  /** Each client process. */
  readonly clients: readonly ProcessWindow[];
  /** Browser members joined during the window (divisor of the per-member figures). */
  readonly members: number;
}

/** An event an agent saw about a browser member: suspect, dead or left. */
export interface TabEvent {
  readonly agent: string;
  readonly name: string;
  readonly state: 'suspect' | 'dead' | 'left';
  /** Epoch ms. */
  readonly at: number;
}

/** How long until every agent saw a set of tabs in a state; `ms` undefined when it did not happen in the bound. */
export interface Timed {
  readonly tabs: number;
  readonly ms: number | undefined;
  /** What was seen instead when it timed out (per state, counted over agents × tabs), or why it did not run. */
  readonly note?: string;
}

export interface GatewaySizeRun {
  readonly clients: number;
  /** Wall time of the run, ms. */
  readonly wallMs: number;
  /** Browser members that got in (welcomed, member joined). */
  readonly joined: number;
  /** Why the others did not, message → count. */
  readonly joinFailures: Readonly<Record<string, number>>;
  /** From the first join to every agent seeing every joined tab alive; undefined if not within the bound. */
  readonly allAliveMs: number | undefined;
  readonly rssBeforeBytes: number;
  readonly join: PhaseFigures | undefined;
  readonly quiet: PhaseFigures | undefined;
  /** Suspect / dead / left events about tabs that were alive (not closed, not cut) when the agents saw them. */
  readonly falseEvents: readonly TabEvent[];
  readonly burst: Timed | undefined;
  readonly close: Timed | undefined;
  readonly cut: Timed | undefined;
  /** Set when the run stopped early (its time bound, a process that died). */
  readonly error?: string;
  /** The 1-minute load average at the start and the end of the run. */
  readonly load: readonly [number, number];
}

export interface ChromiumRun {
  readonly tabs: number;
  readonly joined: number;
  readonly allAliveMs: number | undefined;
  readonly close: Timed | undefined;
  readonly cut: Timed | undefined;
  readonly falseEvents: number;
  readonly error?: string;
}

export interface GatewayResult {
  readonly experiment: 'gateway';
  readonly params: GatewayParams;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly loadAverage: readonly [number, number] };
  readonly source?: { readonly commit: string; readonly uncommitted: readonly string[] };
  readonly runs: readonly GatewaySizeRun[];
  readonly chromium: ChromiumRun | string | undefined;
}

/** The target of issue 31: loop p99 under this, in the gateway and the client processes. */
export const MAX_LOOP_P99_MS = 20;
