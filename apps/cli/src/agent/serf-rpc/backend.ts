/**
 * The Serf RPC backend of a running `swim agent` (serf-rpc/backend.ts), in either wire mode: the
 * runtime Member for members, joins, tags and membership events; the SerfLayer (memberlist mode)
 * or @swim broadcasts (user-events.ts) for user events; the `swim keys` operation or Serf's key
 * queries for keys; and the adapters of queries, coordinates and force-leave.
 */
import { decodeTags, type SerfLayer } from '@swim/adapter-memberlist';
import type { SecureTransport } from '@swim/encryption';
import { JoinError, type JoinResult, type Member } from '@swim/runtime';
import type { Wire } from '../../commands/agent/flags.js';
import { joinSeeds } from '../../control/routes/join.js';
import { updateTags } from '../../control/routes/tags.js';
import { isIP } from 'node:net';
import type { RpcEvent, SerfRpcBackend } from '../../serf-rpc/backend.js';
import { coordinateOf } from './coordinates.js';
import { forceLeave } from './force-leave.js';
import type { LogRing } from './log-ring.js';
import { memberEventName, rpcMember } from './members.js';
import { onIncomingQuery, startQuery } from './queries.js';
import { serfKeyCommand } from './serf-key-command.js';
import { serfStats } from './stats.js';
import { swimKeyCommand } from './swim-keys.js';
import type { UserEvents } from './user-events.js';

export interface AgentForSerfRpc {
  readonly member: Member;
  readonly wire: Wire;
  readonly serf: SerfLayer | undefined;
  readonly secure: SecureTransport | undefined;
  readonly userEvents: UserEvents;
  readonly logs: LogRing;
  /** The agent is leaving: joins and tag changes are refused. */
  readonly stopping: () => boolean;
  join(seeds: readonly string[]): Promise<JoinResult>;
  logJoin(result: JoinResult): void;
  logTags(tags: Record<string, string>): void;
  /** Start the agent's leave and shutdown; resolves once the leave has spread or timed out. */
  leave(): Promise<unknown>;
}

export function agentSerfBackend(agent: AgentForSerfRpc): SerfRpcBackend {
  const { member, wire, serf } = agent;
  const ownTags = () => decodeTags(member.member(member.name)?.meta ?? new Uint8Array(0));
  return {
    members: () => member.allMembers().map((view) => rpcMember(member, wire, view, agent.stopping())),

    async join(addresses) {
      // Replay is accepted: a swim agent keeps no event history to replay (nor ignores any).
      if (agent.stopping()) return { num: 0, error: 'the agent is leaving' };
      // The checks of swim join (each seed costs a connection), after memberlist's default port.
      const seeds = joinSeeds({ seeds: addresses.map((address) => withDefaultPort(address, member.address)) });
      if (!Array.isArray(seeds)) return { num: 0, error: seeds.error };
      try {
        const result = await agent.join(seeds);
        agent.logJoin(result);
        return { num: result.contacted.length, error: '' };
      } catch (error) {
        if (!(error instanceof JoinError)) return { num: 0, error: (error as Error).message };
        agent.logJoin(error.result);
        return { num: error.result.contacted.length, error: joinErrorText(error.result, error.message) };
      }
    },

    leave: async () => {
      await agent.leave();
    },
    // The agent's shutdown (started by leave) closes the server after the reply is written.
    shutdownAfterLeave: () => {},

    forceLeave: async (node, prune) => forceLeave(member, serf, node, prune),

    userEvent: (name, payload, coalesce) => agent.userEvents.send(name, payload, coalesce),

    query: (params) => startQuery(member, params),

    tags: ownTags,
    async setTags(tags) {
      if (agent.stopping()) throw new Error('the agent is leaving');
      const current = ownTags();
      const answer = await updateTags(member, { set: tags, delete: Object.keys(current).filter((key) => !Object.hasOwn(tags, key)) }, agent.logTags);
      if (answer.status !== 200) throw new Error((answer.body as { error: string }).error);
    },

    keys: (op, key) => (serf === undefined ? swimKeyCommand(member, agent.secure, op, key) : serfKeyCommand(serf, op, key)),

    stats: () =>
      serfStats({
        member,
        tags: ownTags(),
        encrypted: agent.secure?.keyring !== undefined,
        clocks: serf === undefined ? { member: 0, event: agent.userEvents.time, query: 0 } : { member: serf.clocks.clock, event: serf.clocks.eventClock, query: serf.clocks.queryClock },
      }),

    coordinate: (node) => coordinateOf(member, node),

    subscribeEvents(listener: (event: RpcEvent) => void) {
      const stops = [
        member.on('change', (change) => {
          const event = memberEventName(change.event);
          if (event !== undefined) listener({ kind: 'member', event, members: [rpcMember(member, wire, change.member, false)] });
        }),
        agent.userEvents.on(listener),
        onIncomingQuery(member, listener),
      ];
      return () => {
        for (const stop of stops) stop();
      };
    },

    subscribeLogs: (listener) => agent.logs.subscribe(listener),
  };
}

/** memberlist Join's error as Serf reports it (a go-multierror): only when no seed answered. */
function joinErrorText(result: JoinResult, fallback: string): string {
  if (result.contacted.length > 0) return '';
  if (result.failed.length === 0) return fallback;
  const n = result.failed.length;
  const lines = result.failed.map((f) => `\t* Failed to join ${f.address}: ${f.reason}`).join('\n');
  return `${n} error${n === 1 ? '' : 's'} occurred:\n${lines}\n\n`;
}

/** memberlist Join: an address without a port gets this node's own port (memberlist config.BindPort). */
export function withDefaultPort(address: string, own: string): string {
  const ownPort = own.slice(own.lastIndexOf(':') + 1);
  if (isIP(address) === 6) return `[${address}]:${ownPort}`;
  if (address.startsWith('[') && address.endsWith(']')) return `${address}:${ownPort}`;
  return address.includes(':') ? address : `${address}:${ownPort}`;
}
