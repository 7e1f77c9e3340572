/**
 * The common setup of the tests that run `swim agent --wire memberlist` next to real Serf agents:
 * Serf agents and swim agents started per test and stopped after it, and a wait for one member's
 * view of another (Serf's `members` or our control endpoint).
 */
import { afterAll, afterEach } from 'vitest';
import { SerfAgents, type SerfAgent, type SerfMember } from '@swim/test-support';
import { killAll, membersOf, startAgent, type Agent, type MembersReply } from './agents.js';

export const SERF_TIMEOUT_MS = 30_000;

export interface SwimOptions {
  readonly join?: SerfAgent | Agent;
  readonly encrypt?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly extra?: readonly string[];
}

export interface MixedCluster {
  readonly serf: SerfAgents;
  /** A swim agent on memberlist's wire with the profile's own timers, as the Serf agents run. */
  startSwim(name: string, options?: SwimOptions): Promise<Agent>;
  /** Wait until `observer` (Serf or swim) lists `name` as `status`; returns when it was first seen. */
  seen(observer: SerfAgent | Agent, name: string, status: string, timeoutMs?: number): Promise<number>;
}

export const serfView = (members: readonly SerfMember[]): Record<string, string> => Object.fromEntries(members.map((m) => [m.name, m.status]));
export const swimView = (reply: MembersReply): Record<string, string> => Object.fromEntries(reply.members.map((m) => [m.name, m.state]));

/** Call inside a `describe`: registers the hooks that stop every agent after each test. */
export function mixedCluster(): MixedCluster {
  const serf = new SerfAgents();
  const agents: Agent[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL');
    await serf.cleanup();
  });
  afterAll(() => killAll());

  async function startSwim(name: string, options: SwimOptions = {}): Promise<Agent> {
    const extra = ['--wire', 'memberlist'];
    if (options.encrypt !== undefined) extra.push('--encrypt', options.encrypt);
    for (const [key, value] of Object.entries(options.tags ?? {})) extra.push('--tag', `${key}=${value}`);
    extra.push(...(options.extra ?? []));
    const agent = await startAgent(name, { extra, timing: 'preset', ...(options.join === undefined ? {} : { join: [options.join.address] }) });
    agents.push(agent);
    return agent;
  }

  function seen(observer: SerfAgent | Agent, name: string, status: string, timeoutMs = SERF_TIMEOUT_MS): Promise<number> {
    let last: Record<string, string> = {};
    return serf.waitFor(
      async () => {
        last = 'logPath' in observer ? serfView(await serf.members(observer)) : swimView(await membersOf(observer));
        return last[name] === status;
      },
      { timeoutMs, describe: () => `${observer.name} to list ${name} ${status}; it lists ${JSON.stringify(last)}` },
    );
  }

  return { serf, startSwim, seen };
}
