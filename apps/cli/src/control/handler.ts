/**
 * The control endpoint's routes, each answering from the running agent: who is in the cluster,
 * its counters, key operations, tag changes, joins, force-leaves of failed members and the leave.
 * `GET /monitor` and `POST /query` stream instead (routes/monitor.ts, routes/query.ts); every
 * request has passed the guard before it gets here (server.ts).
 */
import type { SerfKeyOp, SerfKeyReport } from '@swim/adapter-memberlist';
import type { SecureTransport } from '@swim/encryption';
import { JoinError, NameConflictError, type JoinResult, type Member } from '@swim/runtime';
import type { Wire } from '../commands/agent/flags.js';
import { memberJson, type MembersReply } from '../output/members.js';
import { FORCE_LEAVE_ROUTE, forceLeaveFromBody } from './routes/force-leave.js';
import { COORDINATE_ROUTE, coordinateRoute } from './routes/coordinate.js';
import { joinSeeds } from './routes/join.js';
import { DEFAULT_KEY_OP_TIMEOUT_MS, keyOpFromBody, keysRoute, KEYS_ROUTES, serfKeysRoute } from './routes/keys.js';
import { MONITOR_ROUTE } from './routes/monitor.js';
import { QUERY_ROUTE } from './routes/query.js';
import { tagsChangeFromBody, TAGS_ROUTE, updateTags } from './routes/tags.js';
import type { ControlAnswer, ControlRequest } from './server.js';

/** `METHOD /path` of every route the endpoint answers. */
export const CONTROL_ROUTES = ['GET /members', 'GET /stats', 'POST /join', 'POST /leave', FORCE_LEAVE_ROUTE, ...KEYS_ROUTES, MONITOR_ROUTE, QUERY_ROUTE, TAGS_ROUTE, COORDINATE_ROUTE];

/** What the routes act on: the running agent (agent/start.ts). */
export interface ControlledAgent {
  readonly member: Member;
  readonly wire: Wire;
  /** The encryption/label layer, when the agent runs with one. */
  readonly secure: SecureTransport | undefined;
  /** With --wire memberlist: Serf's key commands (internal key queries, answered by Serf agents and swim agents alike). */
  readonly serfKeys?: (op: SerfKeyOp, key: string | undefined) => Promise<SerfKeyReport>;
  /** The body of GET /stats: the agent's counters now. */
  stats(): Record<string, unknown>;
  /** The agent is leaving: joins and tag changes are refused. */
  readonly stopping: boolean;
  join(seeds: readonly string[]): Promise<JoinResult>;
  /** Log a join's outcome: each failed seed, then the contacted ones. */
  logJoin(result: JoinResult): void;
  /** Log the agent's tags, just set. */
  logTags(tags: Record<string, string>): void;
  /**
   * Mark a failed member left (POST /force-leave; Serf's leave intent too in a Serf cluster);
   * true when something changed here. Throws a RangeError for a bad name.
   */
  forceLeave(name: string, prune: boolean): boolean;
  /** Start the leave and stop (POST /leave); resolves once the leave has spread or timed out, undefined if it failed. */
  leave(): Promise<{ spread: boolean } | undefined> | undefined;
}

/** The answer to every route of {@link CONTROL_ROUTES} but the streaming ones. */
export function controlHandler(agent: ControlledAgent): (request: ControlRequest) => Promise<ControlAnswer> {
  return async function handle(request) {
    const { member } = agent;
    switch (`${request.method} ${request.path}`) {
      case 'GET /members': {
        const body: MembersReply = { self: member.name, healthScore: member.healthScore, members: member.allMembers().map(memberJson) };
        return { status: 200, body };
      }
      case 'GET /stats':
        return { status: 200, body: agent.stats() };
      case 'GET /keys':
      case 'POST /keys': {
        const keyOp = request.method === 'GET' ? { op: { op: 'list' as const }, timeoutMs: DEFAULT_KEY_OP_TIMEOUT_MS } : keyOpFromBody(request.body);
        if ('error' in keyOp) return { status: 400, body: keyOp };
        if (agent.wire === 'memberlist') {
          if (agent.serfKeys === undefined) return { status: 409, body: { error: 'this agent cannot send Serf key queries' } };
          return serfKeysRoute(agent.serfKeys, keyOp.op);
        }
        return keysRoute(agent.secure, member, keyOp);
      }
      case COORDINATE_ROUTE:
        return coordinateRoute(member, request.body);
      case TAGS_ROUTE: {
        const change = tagsChangeFromBody(request.body);
        if ('error' in change) return { status: 400, body: change };
        if (agent.stopping) return { status: 409, body: { error: 'the agent is leaving' } };
        return updateTags(member, change, (tags) => agent.logTags(tags));
      }
      case FORCE_LEAVE_ROUTE: {
        const target = forceLeaveFromBody(request.body);
        if ('error' in target) return { status: 400, body: target };
        if (agent.stopping) return { status: 409, body: { error: 'the agent is leaving' } };
        return { status: 200, body: { name: target.name, prune: target.prune, changed: agent.forceLeave(target.name, target.prune) } };
      }
      case 'POST /join': {
        const seeds = joinSeeds(request.body);
        if (!Array.isArray(seeds)) return { status: 400, body: seeds };
        if (agent.stopping) return { status: 409, body: { error: 'the agent is leaving' } };
        try {
          const result = await agent.join(seeds);
          agent.logJoin(result);
          return { status: 200, body: result };
        } catch (error) {
          if (!(error instanceof JoinError)) throw error;
          agent.logJoin(error.result);
          // Our name is taken in that cluster: the agent keeps running alone, the caller is told why.
          const status = error instanceof NameConflictError ? 409 : 502;
          return { status, body: { error: error.message, ...error.result } };
        }
      }
      default: {
        // POST /leave: answer once the leave has spread (bounded), then close and exit.
        const result = await agent.leave();
        return { status: 200, body: { left: true, spread: result?.spread ?? false } };
      }
    }
  };
}
