/** The processes every run starts: the gateway (and its member) and the UDP agents, and the waits on what the agents see. */
import { Child } from './child.js';
import type { ProcessWindow, RelayCounts, TabEvent, Timed } from './result.js';

export const TOKEN = 'bench-gateway-join-token';
export const TAB_PREFIXES = ['tab-', 'burst-', 'cut-', 'page-'];

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface GatewaySample {
  readonly window: ProcessWindow;
  readonly counters: RelayCounts;
  readonly sessions: number;
}

export class BenchCluster {
  private constructor(
    readonly gateway: Child,
    readonly agents: Child,
    readonly url: string,
    readonly agentCount: number,
  ) {}

  /** Start the gateway, then the agents joined through its member, and wait until they all see each other alive. */
  static async start(agentCount: number, maxSessions: number): Promise<BenchCluster> {
    const gateway = await Child.start('gateway', './gateway-process.ts', { name: 'gateway', token: TOKEN, maxSessions });
    let agents: Child | undefined;
    try {
      const { url, seed } = await gateway.ask<{ url: string; seed: string }>('ready');
      agents = await Child.start('agents', './agents-process.ts', { count: agentCount, seed, tabPrefixes: TAB_PREFIXES });
      const cluster = new BenchCluster(gateway, agents, url, agentCount);
      const names = ['gateway', ...Array.from({ length: agentCount }, (_, i) => `udp-${i}`)];
      const formed = await cluster.waitSeen(names, 'alive', Date.now(), 30_000);
      if (formed.ms === undefined) throw new Error(`the UDP agents did not see each other alive within 30 s: ${formed.note}`);
      return cluster;
    } catch (error) {
      await Promise.all([gateway.kill(), agents?.kill()]);
      throw error;
    }
  }

  gatewayWindow(reset: boolean): Promise<GatewaySample> {
    return this.gateway.ask<GatewaySample>('window', { reset });
  }

  agentsWindow(reset: boolean): Promise<ProcessWindow> {
    return this.agents.ask<ProcessWindow>('window', { reset });
  }

  events(since: number): Promise<TabEvent[]> {
    return this.agents.ask<TabEvent[]>('events', { since }, 60_000);
  }

  /**
   * Poll the agents until every one sees every one of `names` in `state`, at most `limitMs`: the
   * time from `from` (epoch ms) to when the last agent saw the last name so.
   */
  async waitSeen(names: readonly string[], state: string, from: number, limitMs: number): Promise<Timed> {
    const until = Date.now() + Math.max(0, limitMs);
    let last: { missing: number; latestAt: number | undefined; instead: Record<string, number> } | undefined;
    for (;;) {
      try {
        last = await this.agents.ask('seen', { names, state });
      } catch (error) {
        return { tabs: names.length, ms: undefined, note: (error as Error).message };
      }
      if (last!.latestAt !== undefined) return { tabs: names.length, ms: Math.max(0, last!.latestAt - from) };
      if (Date.now() > until) break;
      await delay(100);
    }
    const instead = Object.entries(last!.instead).map(([s, n]) => `${n} ${s}`).join(', ');
    return { tabs: names.length, ms: undefined, note: `not within ${Math.round(limitMs / 1000)} s: ${last!.missing} (agent, tab) pairs not ${state} (${instead})` };
  }

  async stop(): Promise<void> {
    await Promise.all([this.agents.kill(), this.gateway.kill()]);
  }
}
