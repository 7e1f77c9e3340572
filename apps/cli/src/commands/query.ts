/**
 * `swim query NAME [PAYLOAD]`: the agent's member asks the cluster, and its acks and responses are
 * printed as they stream in, as `serf query` prints them (serf cmd/serf/command/query.go).
 */
import { request } from 'node:http';
import type { QueryRecord, QueryRequestBody } from '../control/routes/query.js';
import { MAX_QUERY_TIMEOUT_MS } from '../control/routes/query.js';
import { durationFlag, formatDuration } from '../flags/duration.js';
import type { HostPort } from '../flags/host-port.js';
import { keyValues } from '../flags/key-values.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import type { FlagSpecs, RawFlags } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { ClientError } from '../control-client/request.js';
import { addressOf, connectionFailure, rejectRefusal } from '../control-client/stream.js';

export interface QueryArgs {
  readonly command: 'query';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly name: string;
  /** The payload as given (UTF-8); empty when none. */
  readonly payload: string;
  /** `--node`: only these members process the query. */
  readonly nodes: readonly string[];
  /** `--tag key=regexp`: only members whose tags match. */
  readonly tags: Readonly<Record<string, string>>;
  /** `--timeout`: undefined for the default (the member's, from the cluster's size). */
  readonly timeoutMs: number | undefined;
  /** `--no-ack`: members do not ack. */
  readonly noAck: boolean;
  readonly relayFactor: number;
  readonly json: boolean;
}

export const QUERY_FLAGS: FlagSpecs = {
  rpc: { type: 'string' },
  'rpc-token': { type: 'string' },
  node: { type: 'repeatable' },
  tag: { type: 'repeatable' },
  timeout: { type: 'string' },
  'no-ack': { type: 'boolean' },
  'relay-factor': { type: 'string' },
  json: { type: 'boolean' },
};

export const QUERY_USAGE = `usage: swim query NAME [PAYLOAD] [--node NAME]... [--tag key=regexp]... [--timeout DUR] [--no-ack]
                  [--relay-factor N] [--json] [--rpc HOST:PORT] [--rpc-token TOKEN]

  --node NAME         only this member processes the query (repeatable)
  --tag key=regexp    only members whose tag matches the regular expression (RE2, unanchored; repeatable)
  --timeout DUR       how long to collect answers (e.g. 500ms, 5s; default: the member's, from the cluster's size)
  --no-ack            members do not acknowledge the query
  --relay-factor N    answers also come back through N other members, 0 to 255 (default 0)
  --json              print {"Acks": [...], "Responses": {"node": "payload"}} at the end, as serf query -format=json
  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
Every member the query reaches and selects runs its handlers (swim agent --query-handler); their answers are
printed as they come, until the timeout. Names starting with _serf_ are refused.`;

export function queryArgs(raw: RawFlags, env: Env): QueryArgs {
  const command = 'query';
  const [name, payload, ...more] = raw.positionals;
  if (name === undefined || name === '') throw new UsageError('a query name must be given', command);
  if (more.length > 0) throw new UsageError('too many arguments: only a name and a payload', command);
  if (name.startsWith('_serf_')) throw new UsageError("queries cannot contain the '_serf_' prefix", command);
  const nodes = raw.lists.get('node') ?? [];
  const tags = keyValues(command, 'tag', raw.lists.get('tag') ?? []);
  const timeoutText = raw.strings.get('timeout');
  let timeoutMs: number | undefined;
  if (timeoutText !== undefined) {
    timeoutMs = durationFlag(command, 'timeout', timeoutText);
    if (timeoutMs > MAX_QUERY_TIMEOUT_MS) throw new UsageError(`--timeout '${timeoutText}': at most ${formatDuration(MAX_QUERY_TIMEOUT_MS)}`, command);
    // 0: the default, as serf query's -timeout=0.
    if (timeoutMs === 0) timeoutMs = undefined;
  }
  const relayText = raw.strings.get('relay-factor') ?? '0';
  if (!/^\d{1,3}$/.test(relayText) || Number(relayText) > 255) throw new UsageError('--relay-factor: must be between 0 and 255', command);
  return {
    command,
    rpc: rpcAddress(command, raw),
    rpcToken: rpcToken(command, raw, env),
    name,
    payload: payload ?? '',
    nodes,
    tags,
    timeoutMs,
    noAck: raw.booleans.has('no-ack'),
    relayFactor: Number(relayText),
    json: raw.booleans.has('json'),
  };
}

/** How long the agent has to answer before the stream starts, and past the query's timeout for the end. */
const ANSWER_TIMEOUT_MS = 30_000;

/** The body `POST /query` takes for these arguments. */
export function queryBody(args: QueryArgs): QueryRequestBody {
  return {
    name: args.name,
    payload: Buffer.from(args.payload, 'utf8').toString('base64'),
    ...(args.nodes.length === 0 ? {} : { filterNodes: args.nodes }),
    ...(Object.keys(args.tags).length === 0 ? {} : { filterTags: args.tags }),
    ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
    requestAck: !args.noAck,
    relayFactor: args.relayFactor,
  };
}

/** What `serf query` prints for each record, text or JSON. */
export class QueryPrinter {
  readonly #args: QueryArgs;
  readonly #out: (line: string) => void;
  readonly #acks: string[] = [];
  readonly #responses = new Map<string, string>();

  constructor(args: QueryArgs, out: (line: string) => void) {
    this.#args = args;
    this.#out = out;
  }

  record(record: QueryRecord): void {
    const text = !this.#args.json;
    switch (record.type) {
      case 'dispatched':
        if (text) this.#out(`Query '${this.#args.name}' dispatched`);
        return;
      case 'ack':
        this.#acks.push(record.from);
        if (text) this.#out(`Ack from '${record.from}'`);
        return;
      case 'response': {
        const payload = Buffer.from(record.payload, 'base64').toString('utf8');
        this.#responses.set(record.from, payload);
        // serf query strips one trailing newline (echo's).
        if (text) this.#out(`Response from '${record.from}': ${payload.endsWith('\n') ? payload.slice(0, -1) : payload}`);
        return;
      }
      case 'done':
        this.finish();
        return;
    }
  }

  finish(): void {
    if (this.#args.json) {
      // Go's encoding/json: a nil slice is null, map keys sorted, two-space indent.
      const responses = Object.fromEntries([...this.#responses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      this.#out(JSON.stringify({ Acks: this.#acks.length === 0 ? null : this.#acks, Responses: responses }, null, 2));
      return;
    }
    if (!this.#args.noAck) this.#out(`Total Acks: ${this.#acks.length}`);
    this.#out(`Total Responses: ${this.#responses.size}`);
  }
}

/** Send the query through the agent and print its records as they come; resolves at the `done` record. */
export function query(args: QueryArgs, out: (line: string) => void): Promise<void> {
  const { rpc, rpcToken } = args;
  const where = addressOf(rpc);
  const body = JSON.stringify(queryBody(args));
  const printer = new QueryPrinter(args, out);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (rpcToken !== undefined) headers['authorization'] = `Bearer ${rpcToken}`;
    const req = request({ host: rpc.host, port: rpc.port, method: 'POST', path: '/query', headers }, (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) return rejectRefusal(res, reject, 'Error sending query: ');
      let text = '';
      let done = false;
      res.on('data', (chunk: string) => {
        text += chunk;
        let newline: number;
        while ((newline = text.indexOf('\n')) >= 0) {
          const line = text.slice(0, newline);
          text = text.slice(newline + 1);
          let record: QueryRecord;
          try {
            record = JSON.parse(line) as QueryRecord;
          } catch {
            req.destroy(new ClientError(`the agent at ${where} sent a line that is not JSON: ${line.slice(0, 200)}`));
            return;
          }
          if (record.type === 'dispatched') req.setTimeout((record.timeoutMs ?? 0) + ANSWER_TIMEOUT_MS);
          if (record.type === 'done') done = true;
          printer.record(record);
        }
      });
      res.on('end', () => (done ? resolve() : reject(new ClientError(`the agent at ${where} ended the query's stream early (it is stopping, or dropped this client for reading too slowly)`))));
      const lost = () => reject(new ClientError(`lost the connection to the agent at ${where}`));
      res.on('aborted', lost);
      res.on('error', lost);
    });
    req.setTimeout(ANSWER_TIMEOUT_MS, () => req.destroy(new ClientError(`no answer from the agent at ${where} within ${ANSWER_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => reject(connectionFailure(error, where)));
    req.end(body);
  });
}
