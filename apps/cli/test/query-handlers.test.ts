/**
 * `swim agent --query-handler` commands, run as Serf runs its query event handlers
 * (invoke.go invokeEventScript): the payload on stdin, Serf's environment, stdout as the
 * response (bounded), nothing for a failure, and the whole process group killed at the deadline.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTags } from '@swim/adapter-memberlist';
import type { IncomingQuery, Member, QueryHandler } from '@swim/runtime';
import { describe, expect, it } from 'vitest';
import { installQueryHandlers, MAX_HANDLER_OUTPUT_BYTES, type HandlerOutcome } from '../src/agent/query-handlers.js';
import { until } from './agents.js';

/** Just what installQueryHandlers uses of a member: its name, its tags, handleQuery. */
function fakeMember(tags: Record<string, string>) {
  const handlers = new Map<string, QueryHandler>();
  const member = {
    name: 'self-1',
    member: () => ({ meta: encodeTags(tags) }),
    handleQuery: (name: string, handler: QueryHandler) => {
      handlers.set(name, handler);
      return () => handlers.delete(name);
    },
  } as unknown as Member;
  return { member, handlers };
}

function incoming(name: string, payload: string, timeoutMs: number) {
  const responses: Uint8Array[] = [];
  const query: IncomingQuery = {
    name,
    payload: new TextEncoder().encode(payload),
    from: 'asker',
    ltime: 42,
    id: 7,
    deadline: performance.now() + timeoutMs,
    responded: false,
    respond(bytes) {
      if (typeof bytes === 'string') throw new TypeError('the agent sends bytes');
      if (bytes.length > 1000) throw new Error('response exceeds limit of 1024 bytes');
      responses.push(bytes);
    },
  };
  return { query, responses };
}

async function run(command: string, payload = '', timeoutMs = 5_000, tags: Record<string, string> = { role: 'web', 'dc-name': 'east' }) {
  const { member, handlers } = fakeMember(tags);
  const outcomes: HandlerOutcome[] = [];
  installQueryHandlers(member, [{ name: 'q', command }], { report: (o) => outcomes.push(o) });
  const { query, responses } = incoming('q', payload, timeoutMs);
  await handlers.get('q')!(query);
  return { outcomes, responses: responses.map((r) => new TextDecoder().decode(r)) };
}

describe('query handler commands', () => {
  it("get the payload on stdin (a newline added) and Serf's environment; stdout is the response", async () => {
    const { outcomes, responses } = await run('cat; echo "$SERF_EVENT|$SERF_QUERY_NAME|$SERF_QUERY_LTIME|$SERF_SELF_NAME|$SERF_SELF_ROLE|$SERF_TAG_DC_NAME"', 'payload');
    expect(responses).toEqual(['payload\nquery|q|42|self-1|web|east\n']);
    expect(outcomes).toEqual([{ query: 'q', command: expect.any(String), result: 'answered' }]);
  });

  it('send nothing when they print nothing or fail; stderr is in the log, not the response', async () => {
    expect(await run('true')).toMatchObject({ responses: [], outcomes: [{ result: 'silent' }] });
    const failed = await run('echo out; echo oops >&2; exit 4');
    expect(failed.responses).toEqual([]);
    expect(failed.outcomes).toMatchObject([{ result: 'failed', detail: 'exit code 4: oops' }]);
  });

  it(`read at most ${MAX_HANDLER_OUTPUT_BYTES} bytes of stdout; what respond refuses is reported`, async () => {
    const { responses, outcomes } = await run(`head -c 100000 /dev/zero | tr '\\0' x`);
    expect(responses).toEqual([]);
    expect(outcomes).toMatchObject([{ result: 'unsent', detail: 'response exceeds limit of 1024 bytes' }]);
    const small = await run(`head -c 999 /dev/zero | tr '\\0' y`);
    expect(small.responses).toEqual(['y'.repeat(999)]);
  });

  it("are killed at the query's deadline with every process they started", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swim-handler-'));
    const pidFile = join(dir, 'pid');
    const started = performance.now();
    const { responses, outcomes } = await run(`sleep 30 & echo $! > ${pidFile}; wait`, '', 500);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(responses).toEqual([]);
    expect(outcomes).toMatchObject([{ result: 'killed' }]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until('the grandchild is gone', 5_000, () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z');
  });

  it('stop waiting for a process that left the group and holds the output open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swim-handler-'));
    const pidFile = join(dir, 'pid');
    const started = performance.now();
    const { outcomes } = await run(`setsid sleep 30 & echo $! > ${pidFile}; wait`, '', 500);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcomes).toMatchObject([{ result: 'killed' }]);
    // The escaped process is this test's to end.
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  });
});
