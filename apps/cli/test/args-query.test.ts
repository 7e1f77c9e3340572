/** `swim query` and `swim agent --query-handler`: their flags, checked into arguments, every error with its message. */
import { describe, expect, it } from 'vitest';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { parseArgs, USAGE } from '../src/commands/parse.js';
import { QueryPrinter, queryBody, type QueryArgs } from '../src/commands/query.js';
import { queryFromBody } from '../src/control/routes/query.js';
import { usageError } from './usage-error.js';

const RPC = { host: '127.0.0.1', port: 7947 };

describe('swim query arguments', () => {
  it('a name, a payload, filters, timeout, no-ack, relay factor, json', () => {
    expect(parseArgs(['query', 'greet'])).toEqual({
      command: 'query',
      rpc: RPC,
      rpcToken: undefined,
      name: 'greet',
      payload: '',
      nodes: [],
      tags: {},
      timeoutMs: undefined,
      noAck: false,
      relayFactor: 0,
      json: false,
    });
    expect(parseArgs(['query', 'greet', '--node', 'a', 'hello world', '--node', 'b', '--tag', 'role=^web$', '--tag', 'dc=e.*', '--timeout', '1m30s', '--no-ack', '--relay-factor', '3', '--json'])).toMatchObject({
      name: 'greet',
      payload: 'hello world',
      nodes: ['a', 'b'],
      tags: { role: '^web$', dc: 'e.*' },
      timeoutMs: 90_000,
      noAck: true,
      relayFactor: 3,
      json: true,
    });
    // -timeout=0 is the default, as in serf query.
    expect(parseArgs(['query', 'greet', '--timeout', '0'])).toMatchObject({ timeoutMs: undefined });
  });

  it.each([
    [['query'], 'a query name must be given'],
    [['query', 'a', 'b', 'c'], 'too many arguments: only a name and a payload'],
    [['query', '_serf_ping'], "queries cannot contain the '_serf_' prefix"],
    [['query', 'q', '--relay-factor', '256'], '--relay-factor: must be between 0 and 255'],
    [['query', 'q', '--relay-factor', '-1'], '--relay-factor: must be between 0 and 255'],
    [['query', 'q', '--tag', 'role'], "--tag 'role': expected key=value"],
    [['query', 'q', '--tag', 'a=1', '--tag', 'a=2'], "--tag key 'a' given twice"],
    [['query', 'q', '--timeout', '5'], "--timeout: '5' has no unit: expected a number and a unit (ms, s, m, h), e.g. 500ms, 30s, 2m or 1m30s"],
    [['query', 'q', '--timeout', '2h'], "--timeout '2h': at most 1h"],
    [['query', 'q', '--format', 'json'], "unknown flag '--format' for swim query"],
  ])('%j → %s', (argv, message) => {
    expect(usageError(argv)).toBe(message);
  });

  it('is listed in the usage, with its own', () => {
    expect(USAGE.main).toContain('query     ask the cluster');
    expect(parseArgs(['query', '--help'])).toEqual({ command: 'help', topic: 'query' });
    expect(USAGE.query).toContain('--relay-factor N');
  });

  it('becomes the body of POST /query, which the agent reads back', () => {
    const args = parseArgs(['query', 'greet', 'hi', '--node', 'a', '--tag', 'role=web', '--timeout', '2s']) as QueryArgs;
    const body = queryBody(args);
    expect(body).toEqual({ name: 'greet', payload: 'aGk=', filterNodes: ['a'], filterTags: { role: 'web' }, timeoutMs: 2000, requestAck: true, relayFactor: 0 });
    expect(queryFromBody(body)).toEqual({ name: 'greet', payload: new Uint8Array([104, 105]), options: { filterNodes: ['a'], filterTags: { role: 'web' }, timeoutMs: 2000, requestAck: true, relayFactor: 0 } });
  });

  it.each([
    [[], 'expected a JSON object {"name": ..., "payload": base64, ...}'],
    [{ payload: '' }, 'name: expected a non-empty string'],
    [{ name: 'q', payload: 'not base64!' }, 'payload: expected base64'],
    [{ name: 'q', extra: 1 }, "unknown field 'extra' (expected name, payload, filterNodes, filterTags, timeoutMs, requestAck, relayFactor)"],
    [{ name: 'q', filterNodes: Array(1025).fill('a') }, 'filterNodes: expected at most 1024 node names'],
    [{ name: 'q', filterTags: { a: 1 } }, 'filterTags: expected at most 64 tag names, each with a regular expression'],
    [{ name: 'q', timeoutMs: 3_600_001 }, 'timeoutMs: expected an integer from 1 to 3600000'],
    [{ name: 'q', relayFactor: 1.5 }, 'relayFactor: expected an integer from 0 to 255'],
    [{ name: 'q', requestAck: 'yes' }, 'requestAck: expected a boolean'],
  ])('POST /query refuses %j: %s', (body, error) => {
    expect(queryFromBody(body)).toEqual({ error });
  });

  it("prints as serf query: text with one trailing newline stripped, or serf's JSON", () => {
    const run = (json: boolean, noAck = false) => {
      const lines: string[] = [];
      const printer = new QueryPrinter({ ...(parseArgs(['query', 'greet']) as QueryArgs), json, noAck }, (line) => lines.push(line));
      printer.record({ type: 'dispatched', name: 'greet', ltime: 1, id: 2, timeoutMs: 1000 });
      printer.record({ type: 'ack', from: 'b' });
      printer.record({ type: 'response', from: 'b', payload: Buffer.from('hi\n\n').toString('base64') });
      printer.record({ type: 'response', from: 'a', payload: '' });
      printer.record({ type: 'done', acks: 1, responses: 2 });
      return lines;
    };
    expect(run(false)).toEqual(["Query 'greet' dispatched", "Ack from 'b'", "Response from 'b': hi\n", "Response from 'a': ", 'Total Acks: 1', 'Total Responses: 2']);
    expect(run(false, true).slice(-1)).toEqual(['Total Responses: 2']);
    expect(run(false, true)).not.toContain('Total Acks: 1');
    expect(run(true)).toEqual([JSON.stringify({ Acks: ['b'], Responses: { a: '', b: 'hi\n\n' } }, null, 2)]);
  });
});

describe('swim agent --query-handler', () => {
  const agent = (...flags: string[]) => parseArgs(['agent', '--name', 'n', '--bind', '127.0.0.1:0', ...flags]) as AgentArgs;

  it('takes NAME=COMMAND pairs, * included; the command may hold =', () => {
    expect(agent().queryHandlers).toEqual([]);
    expect(agent('--query-handler', 'greet=echo a=b', '--query-handler', '*=cat').queryHandlers).toEqual([
      { name: 'greet', command: 'echo a=b' },
      { name: '*', command: 'cat' },
    ]);
  });

  it.each([
    [['--query-handler', 'greet'], "--query-handler 'greet': expected NAME=COMMAND (NAME may be * for every query)"],
    [['--query-handler', '=cat'], "--query-handler '=cat': expected NAME=COMMAND (NAME may be * for every query)"],
    [['--query-handler', 'greet= '], "--query-handler 'greet': the command is empty"],
    [['--query-handler', '_serf_ping=true'], "--query-handler '_serf_ping': queries named _serf_... are Serf's own, answered by the agent itself"],
    [['--query-handler', 'a=x', '--query-handler', 'a=y'], "--query-handler 'a' given twice"],
  ])('%j → %s', (flags, message) => {
    expect(usageError(['agent', '--name', 'n', '--bind', '127.0.0.1:0', ...flags])).toBe(message);
  });

  it('is documented in the agent usage', () => {
    expect(USAGE.agent).toContain('--query-handler NAME=CMD');
  });
});
