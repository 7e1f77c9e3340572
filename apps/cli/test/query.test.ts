/**
 * `swim query` against three real agents on swim's wire, answered by `swim agent --query-handler`
 * commands: the output `serf query` prints (text and --json), node and tag filters, the payload on
 * the handler's stdin and Serf's environment variables, and handlers that fail or overrun their
 * deadline (logged, no response, the agent keeps running).
 */
import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_STREAMS } from '../src/control/routes/query.js';
import { killAll, membersOf, startAgent, swim, until, type Agent } from './agents.js';

afterAll(killAll);

const HANDLERS = [
  'greet=echo "hello from $SERF_SELF_NAME"',
  'env=echo "$SERF_EVENT $SERF_QUERY_NAME $SERF_QUERY_LTIME $SERF_SELF_NAME $SERF_SELF_ROLE $SERF_TAG_DC"',
  'fail=echo partial; exit 3',
  'slow=sleep 30',
  '*=cat',
];

let a: Agent;
let b: Agent;
let c: Agent;

function agentFlags(role: string): string[] {
  return ['--tag', `role=${role}`, '--tag', 'dc=east', ...HANDLERS.flatMap((h) => ['--query-handler', h])];
}

beforeAll(async () => {
  a = await startAgent('qa', { extra: agentFlags('web') });
  b = await startAgent('qb', { extra: agentFlags('db'), join: [a.address] });
  c = await startAgent('qc', { extra: agentFlags('web'), join: [a.address] });
  await until('three members everywhere', 30_000, async () => {
    for (const agent of [a, b, c]) if ((await membersOf(agent)).members.filter((m) => m.state === 'alive').length !== 3) return false;
    return true;
  });
}, 90_000);

/** `swim query` through agent a. */
function query(...args: string[]) {
  return swim(['query', ...args, '--rpc', a.rpc]);
}

const sorted = (lines: readonly string[]) => [...lines].sort();

describe('swim query', { timeout: 60_000 }, () => {
  it('prints what serf query prints: dispatched, each ack and response, the totals', async () => {
    const { code, stdout, stderr } = await query('greet', '--timeout', '3s');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe("Query 'greet' dispatched");
    expect(lines.slice(-2)).toEqual(['Total Acks: 3', 'Total Responses: 3']);
    expect(sorted(lines.slice(1, -2))).toEqual(
      sorted(["Ack from 'qa'", "Ack from 'qb'", "Ack from 'qc'", "Response from 'qa': hello from qa", "Response from 'qb': hello from qb", "Response from 'qc': hello from qc"]),
    );
  });

  it('node and tag filters reach exactly the selected members; --json prints serf\'s JSON', async () => {
    const byNode = await query('greet', '--node', 'qb', '--timeout', '3s', '--json');
    expect(byNode.code).toBe(0);
    expect(JSON.parse(byNode.stdout)).toEqual({ Acks: ['qb'], Responses: { qb: 'hello from qb\n' } });
    const byTag = await query('greet', '--tag', 'role=^we', '--timeout', '3s', '--json', '--relay-factor', '1');
    const parsed = JSON.parse(byTag.stdout) as { Acks: string[]; Responses: Record<string, string> };
    expect(sorted(parsed.Acks)).toEqual(['qa', 'qc']);
    expect(parsed.Responses).toEqual({ qa: 'hello from qa\n', qc: 'hello from qc\n' });
    // Go's encoding/json: keys in order, two-space indent.
    expect(byTag.stdout).toContain('  "Responses": {\n    "qa": "hello from qa\\n",\n    "qc"');
    const none = await query('greet', '--node', 'nobody', '--timeout', '1s', '--no-ack');
    expect(none.stdout.trim().split('\n')).toEqual(["Query 'greet' dispatched", 'Total Responses: 0']);
  });

  it("hands the handler the payload on stdin and Serf's environment", async () => {
    const echoed = await query('anything', 'the payload', '--node', 'qc', '--timeout', '3s');
    expect(echoed.stdout).toContain("Response from 'qc': the payload\n");
    const env = await query('env', '--node', 'qb', '--timeout', '3s', '--json');
    const response = (JSON.parse(env.stdout) as { Responses: Record<string, string> }).Responses['qb']!;
    expect(response).toMatch(/^query env \d+ qb db east\n$/);
  });

  it('a handler that fails or overruns the deadline sends nothing, is logged, and the agent keeps running', async () => {
    const failed = await query('fail', '--node', 'qa', '--timeout', '3s');
    expect(failed.stdout.trim().split('\n')).toEqual(["Query 'fail' dispatched", "Ack from 'qa'", 'Total Acks: 1', 'Total Responses: 0']);
    const slow = await query('slow', '--node', 'qa', '--timeout', '1s');
    expect(slow.stdout).toContain('Total Responses: 0');
    await until('both handlers logged', 10_000, () => a.lines.filter((l) => l.event === 'query-handler').length >= 2);
    const logged = a.lines.filter((l) => l.event === 'query-handler').map((l) => [l['query'], l['result']]);
    expect(logged).toEqual(expect.arrayContaining([['fail', 'failed'], ['slow', 'killed']]));
    expect(a.child.exitCode).toBeNull();
    const stats = (await (await fetch(`http://${a.rpc}/stats`)).json()) as { queries: { sent: number; streams: { streaming: number } } };
    expect(stats.queries.sent).toBeGreaterThanOrEqual(7);
    expect(stats.queries.streams.streaming).toBe(0);
  });

  it('refuses what Serf refuses: _serf_ names, a bad relay factor, an oversized query', async () => {
    const internal = await query('_serf_ping');
    expect(internal.code).toBe(2);
    expect(internal.stderr).toContain("queries cannot contain the '_serf_' prefix");
    const relay = await query('greet', '--relay-factor', '256');
    expect(relay.code).toBe(2);
    const big = await query('greet', 'x'.repeat(1100));
    expect(big.code).toBe(1);
    expect(big.stderr).toContain('Error sending query: query exceeds limit of 1024 bytes');
  });

  it(`POST /query is guarded like every route: at most ${MAX_QUERY_STREAMS} streams, a client that leaves closes its query`, async () => {
    const url = new URL(`http://${a.rpc}`);
    const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      let req!: ClientRequest;
      const answered = new Promise<{ status: number; first: string }>((resolve, reject) => {
        req = request({ host: url.hostname, port: Number(url.port), method: 'POST', path: '/query', headers }, (res) => {
          res.setEncoding('utf8');
          res.once('data', (chunk: string) => resolve({ status: res.statusCode ?? 0, first: chunk }));
        });
        req.on('error', reject);
        req.end(body);
      });
      return { req, answered };
    };
    const long = JSON.stringify({ name: 'slowpoke', timeoutMs: 60_000, requestAck: false });
    const streams = Array.from({ length: MAX_QUERY_STREAMS }, () => post(long));
    for (const stream of streams) expect((await stream.answered).status).toBe(200);
    const refused = post(long);
    expect(await refused.answered).toMatchObject({ status: 503 });
    expect((await post(long, { 'content-type': 'text/plain' }).answered).status).toBe(415);
    expect((await post(long, { 'content-type': 'application/json', origin: 'http://evil.example' }).answered).status).toBe(403);
    expect((await post(JSON.stringify({ name: 'q', timeoutMs: 0 })).answered).status).toBe(400);
    type Stats = { queries: { pending: number; streams: { streaming: number; refused: number } } };
    const stats = async () => ((await (await fetch(`http://${a.rpc}/stats`)).json()) as Stats).queries;
    expect(await stats()).toMatchObject({ pending: MAX_QUERY_STREAMS, streams: { streaming: MAX_QUERY_STREAMS, refused: 1 } });
    for (const stream of streams) stream.req.destroy();
    await until('every query closed with its client', 10_000, async () => (await stats()).pending === 0);
    expect((await stats()).streams.streaming).toBe(0);
  });
});
