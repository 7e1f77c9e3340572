/**
 * One client connection of the Serf RPC server, as ipc.go handleClient runs it: requests read and
 * answered one after another (a slow `join` holds the next request, as in Serf), while `stream`,
 * `monitor` and `query` records are written under their request's Seq as they come.
 *
 * Serf's quirks kept on purpose (serf-protocol §6.2): the header is decoded into the same struct
 * every time, so a map without `Command` repeats the previous command; `Authentication required`
 * leaves the request's body unread (it is then read as the next header, as Serf does); an unknown
 * command, a missing handshake, a body that does not decode and a bad `members-filtered` regexp
 * close the connection.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { LOG_LEVELS, type RpcEvent, type RpcIncomingQuery, type RpcKeyOp, type SerfRpcBackend } from './backend.js';
import { asStruct, boolField, bytesField, encodeValue, intField, stringField, stringListField, stringMapField, uintField } from './codec.js';
import { eventPasses, parseEventFilter } from './event-filter.js';
import { filterMembers } from './member-filter.js';
import { BODILESS, ERRORS, IPC_VERSION, isCommand, tooManyStreams, type SerfRpcLimits } from './protocol.js';
import {
  coordinateBody,
  keyBody,
  logRecord,
  memberEventRecord,
  membersBody,
  QUERY_DONE_RECORD,
  queryEventRecord,
  queryReplyRecord,
  responseHeader,
  userEventRecord,
  type Seq,
} from './records.js';
import { RequestReader } from './request-reader.js';

/** Complete requests that may wait for the session before the socket is paused. */
const MAX_QUEUED_REQUESTS = 16;

export interface SessionCounters {
  /** Stream and monitor records dropped because the client was not reading. */
  droppedRecords: number;
  /** The most ever written to one connection and not yet taken by its peer (bounded by twice the high-water mark). */
  maxOutputBufferedBytes: number;
}

export interface SessionOptions {
  readonly backend: SerfRpcBackend;
  /** `--serf-rpc-auth`: the token `auth` must carry; undefined: none asked. */
  readonly authToken: string | undefined;
  readonly limits: SerfRpcLimits;
  /** Why the session closed the connection (logged by the server); not called for a plain disconnect. */
  readonly onProblem: (reason: string) => void;
  readonly counters: SessionCounters;
}

/** Thrown out of a command handler: close the connection without a reply (Go's handler returned an error). */
class CloseConnection extends Error {}

interface Stream {
  readonly kind: 'event' | 'monitor' | 'query';
  stop(): void;
}

export class SerfRpcSession {
  readonly #socket: Socket;
  readonly #options: SessionOptions;
  readonly #reader: RequestReader;
  /** ipc.go decodes every header into one struct: fields a header leaves out keep their last value. */
  #header: { command: unknown; seq: Seq } = { command: '', seq: 0 };
  #version = 0;
  #authenticated = false;
  #closed = false;
  #waiting: (() => void) | undefined;
  #pausedForOutput = false;
  /** Resolved when the client has taken our output (drain) or the connection closed. */
  #drained: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;
  #partialTimer: NodeJS.Timeout | undefined;
  #handshakeTimer: NodeJS.Timeout | undefined;
  /** Event streams by Seq, the monitor, running queries. */
  readonly #streams = new Map<string, Stream>();
  #monitor: { readonly seq: Seq; readonly stop: () => void } | undefined;
  #queryStreams = 0;
  /** Received queries streamed to this client, by the per-connection ID it answers with (ipc.go pendingQueries). */
  readonly #pending = new Map<number, { readonly query: RpcIncomingQuery; readonly timer: NodeJS.Timeout }>();
  #nextQueryId = 0;

  constructor(socket: Socket, options: SessionOptions) {
    this.#socket = socket;
    this.#options = options;
    const { limits } = options;
    this.#reader = new RequestReader(
      { maxBytes: limits.maxRequestBytes, maxDepth: limits.maxDepth, maxQueued: MAX_QUEUED_REQUESTS },
      {
        onValue: () => this.#wake(),
        onRefused: (reason) => this.#fail(reason),
        onPartial: (pending) => this.#timePartial(pending),
      },
    );
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#reader.push(chunk);
      this.#updateReading();
    });
    socket.on('drain', () => {
      this.#pausedForOutput = false;
      this.#drained?.resolve();
      this.#drained = undefined;
      this.#updateReading();
    });
    socket.on('close', () => this.#cleanup());
    socket.on('error', () => this.#cleanup());
    const what = options.authToken === undefined ? 'handshake' : 'handshake and auth';
    this.#handshakeTimer = setTimeout(() => this.#fail(`no ${what} within ${limits.handshakeTimeoutMs} ms`), limits.handshakeTimeoutMs);
    this.#handshakeTimer.unref();
    void this.#run();
  }

  /** Close the connection now (the server is stopping). */
  close(): void {
    this.#socket.destroy();
    this.#cleanup();
  }

  async #run(): Promise<void> {
    try {
      for (;;) {
        const value = await this.#next();
        const header = asStruct(value);
        if (header === undefined) throw new CloseConnection('a request header that is not a map');
        if (Object.hasOwn(header, 'Command')) this.#header.command = header['Command'];
        if (Object.hasOwn(header, 'Seq')) {
          const seq = uintField(header, 'Seq');
          if (seq === undefined) throw new CloseConnection('a Seq that is not an unsigned integer');
          this.#header.seq = seq;
        }
        const command = this.#header.command;
        if (command !== undefined && command !== null && typeof command !== 'string' && !(command instanceof Uint8Array)) throw new CloseConnection('a Command that is not a string');
        await this.#handle(command instanceof Uint8Array ? Buffer.from(command).toString('utf8') : String(command ?? ''), this.#header.seq);
      }
    } catch (error) {
      if (this.#closed) return;
      this.#fail(error instanceof CloseConnection ? error.message : `internal error: ${(error as Error).message}`);
    }
  }

  async #handle(command: string, seq: Seq): Promise<void> {
    if (command !== 'handshake' && this.#version === 0) {
      this.#send(seq, ERRORS.handshakeRequired);
      throw new CloseConnection(ERRORS.handshakeRequired);
    }
    if (this.#options.authToken !== undefined && !this.#authenticated && command !== 'auth' && command !== 'handshake') {
      this.#send(seq, ERRORS.authRequired);
      return;
    }
    if (!isCommand(command)) {
      this.#send(seq, ERRORS.unsupportedCommand);
      throw new CloseConnection(`command '${command.slice(0, 64)}' not recognized`);
    }
    const body = BODILESS.has(command) ? {} : await this.#body();
    const { backend } = this.#options;
    switch (command) {
      case 'handshake': {
        const version = intField(body, 'Version') ?? bad('Version');
        let error = '';
        if (version !== IPC_VERSION) error = ERRORS.unsupportedIPCVersion;
        else if (this.#version !== 0) error = ERRORS.duplicateHandshake;
        else {
          this.#version = version;
          // With a token, the client has until the same deadline to authenticate: unauthenticated idle connections cannot hold every slot.
          if (this.#options.authToken === undefined) clearTimeout(this.#handshakeTimer);
        }
        return void this.#send(seq, error);
      }
      case 'auth': {
        const key = stringField(body, 'AuthKey') ?? bad('AuthKey');
        const ok = this.#options.authToken === undefined ? key === '' : sameToken(key, this.#options.authToken);
        if (ok) {
          this.#authenticated = true;
          clearTimeout(this.#handshakeTimer);
        }
        return void this.#send(seq, ok ? '' : ERRORS.invalidAuthToken);
      }
      case 'members':
        return void this.#send(seq, '', membersBody(backend.members()));
      case 'members-filtered': {
        const filter = { name: stringField(body, 'Name') ?? bad('Name'), status: stringField(body, 'Status') ?? bad('Status'), tags: stringMapField(body, 'Tags') ?? bad('Tags') };
        const members = filterMembers(backend.members(), filter);
        if ('error' in members) throw new CloseConnection(members.error);
        return void this.#send(seq, '', membersBody(members));
      }
      case 'join': {
        const existing = stringListField(body, 'Existing') ?? bad('Existing');
        const replay = boolField(body, 'Replay') ?? bad('Replay');
        const { num, error } = await backend.join(existing, replay);
        return void this.#send(seq, error, { Num: num });
      }
      case 'leave': {
        let error = '';
        try {
          await backend.leave();
        } catch (e) {
          error = (e as Error).message;
        }
        this.#send(seq, error);
        // ipc.go handleLeave: the agent shuts down once the reply is written.
        backend.shutdownAfterLeave();
        return;
      }
      case 'force-leave': {
        const node = stringField(body, 'Node') ?? bad('Node');
        const prune = boolField(body, 'Prune') ?? bad('Prune');
        return void this.#send(seq, await errorOf(() => backend.forceLeave(node, prune)));
      }
      case 'event': {
        const name = stringField(body, 'Name') ?? bad('Name');
        const payload = bytesField(body, 'Payload') ?? bad('Payload');
        const coalesce = boolField(body, 'Coalesce') ?? bad('Coalesce');
        return void this.#send(seq, await errorOf(() => backend.userEvent(name, payload, coalesce)));
      }
      case 'tags': {
        const set = stringMapField(body, 'Tags') ?? bad('Tags');
        const deleted = stringListField(body, 'DeleteTags') ?? bad('DeleteTags');
        // ipc.go handleTags: (current − DeleteTags) ∪ Tags.
        const next: Record<string, string> = {};
        for (const [key, value] of Object.entries(backend.tags())) if (!deleted.includes(key)) define(next, key, value);
        for (const [key, value] of set) define(next, key, value);
        return void this.#send(seq, await errorOf(() => backend.setTags(next)));
      }
      case 'install-key':
      case 'use-key':
      case 'remove-key':
      case 'list-keys': {
        const op = command.slice(0, command.indexOf('-')) as RpcKeyOp;
        const key = op === 'list' ? undefined : (stringField(body, 'Key') ?? bad('Key'));
        const result = await backend.keys(op, key);
        return void this.#send(seq, result.error, keyBody(result));
      }
      case 'stats':
        return void this.#send(seq, '', backend.stats());
      case 'get-coordinate': {
        const node = stringField(body, 'Node') ?? bad('Node');
        return void this.#send(seq, '', coordinateBody(backend.coordinate(node)));
      }
      case 'stream':
        return this.#startStream(seq, stringField(body, 'Type') ?? bad('Type'));
      case 'monitor':
        return this.#startMonitor(seq, stringField(body, 'LogLevel') ?? bad('LogLevel'));
      case 'stop': {
        const stop = uintField(body, 'Stop') ?? bad('Stop');
        if (this.#monitor !== undefined && this.#monitor.seq === stop) {
          this.#monitor.stop();
          this.#monitor = undefined;
        }
        const stream = this.#streams.get(String(stop));
        if (stream !== undefined) {
          stream.stop();
          this.#streams.delete(String(stop));
        }
        return void this.#send(seq, '');
      }
      case 'query':
        return this.#startQuery(seq, body);
      case 'respond': {
        const id = uintField(body, 'ID') ?? bad('ID');
        const payload = bytesField(body, 'Payload') ?? bad('Payload');
        const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
        const error = pending === undefined ? ERRORS.invalidQueryID : await errorOf(() => pending.query.respond(payload));
        return void this.#send(seq, error);
      }
    }
  }

  #streamCount(): number {
    return this.#streams.size + (this.#monitor === undefined ? 0 : 1) + this.#queryStreams;
  }

  #startStream(seq: Seq, type: string): void {
    const filters = parseEventFilter(type);
    if (filters === undefined) return void this.#send(seq, ERRORS.invalidFilter);
    if (this.#streams.has(String(seq))) return void this.#send(seq, ERRORS.streamExists);
    const limit = this.#options.limits.maxStreamsPerConnection;
    if (this.#streamCount() >= limit) return void this.#send(seq, tooManyStreams(limit));
    this.#send(seq, '');
    // Registered after the reply, as ipc.go does (no record before the stream's own reply).
    const unsubscribe = this.#options.backend.subscribeEvents((event) => {
      if (eventPasses(filters, event)) this.#sendEvent(seq, event);
    });
    this.#streams.set(String(seq), { kind: 'event', stop: unsubscribe });
  }

  #sendEvent(seq: Seq, event: RpcEvent): void {
    switch (event.kind) {
      case 'member':
        return void this.#send(seq, '', memberEventRecord(event), 'droppable');
      case 'user':
        return void this.#send(seq, '', userEventRecord(event), 'droppable');
      case 'query': {
        const id = this.#registerQuery(event);
        return void this.#send(seq, '', queryEventRecord(id, event.name, event.payload, event.ltime), 'droppable');
      }
    }
  }

  /** ipc.go RegisterQuery: a per-connection ID, forgotten at the query's deadline (and the oldest first past the bound). */
  #registerQuery(query: RpcIncomingQuery): number {
    const id = ++this.#nextQueryId;
    const remaining = query.deadline - Date.now();
    if (remaining < 0) return id;
    if (this.#pending.size >= this.#options.limits.maxPendingResponds) {
      const [oldest, entry] = this.#pending.entries().next().value as [number, { timer: NodeJS.Timeout }];
      clearTimeout(entry.timer);
      this.#pending.delete(oldest);
    }
    const timer = setTimeout(() => this.#pending.delete(id), remaining);
    timer.unref();
    this.#pending.set(id, { query, timer });
    return id;
  }

  #startMonitor(seq: Seq, requested: string): void {
    const level = requested.toUpperCase();
    const min = (LOG_LEVELS as readonly string[]).indexOf(level);
    if (min < 0) return void this.#send(seq, `Unknown log level: ${level}`);
    if (this.#monitor !== undefined) return void this.#send(seq, ERRORS.monitorExists);
    const limit = this.#options.limits.maxStreamsPerConnection;
    if (this.#streamCount() >= limit) return void this.#send(seq, tooManyStreams(limit));
    this.#send(seq, '');
    const stop = this.#options.backend.subscribeLogs((line) => {
      if (LOG_LEVELS.indexOf(line.level) >= min) this.#send(seq, '', logRecord(line.text), 'droppable');
    });
    this.#monitor = { seq, stop };
  }

  #startQuery(seq: Seq, body: Record<string, unknown>): void {
    const timeoutNs = intField(body, 'Timeout') ?? bad('Timeout');
    const relayFactor = intField(body, 'RelayFactor') ?? bad('RelayFactor');
    const params = {
      name: stringField(body, 'Name') ?? bad('Name'),
      payload: bytesField(body, 'Payload') ?? bad('Payload'),
      filterNodes: stringListField(body, 'FilterNodes') ?? bad('FilterNodes'),
      filterTags: stringMapField(body, 'FilterTags') ?? bad('FilterTags'),
      requestAck: boolField(body, 'RequestAck') ?? bad('RequestAck'),
      // A uint8 in Go: what does not fit fails the decode.
      relayFactor: relayFactor >= 0 && relayFactor <= 255 ? relayFactor : bad('RelayFactor'),
      timeoutMs: timeoutNs <= 0 ? 0 : Math.max(1, Math.round(timeoutNs / 1e6)),
    };
    const limit = this.#options.limits.maxStreamsPerConnection;
    if (this.#streamCount() >= limit) return void this.#send(seq, tooManyStreams(limit));
    let stream;
    try {
      stream = this.#options.backend.query(params);
    } catch (error) {
      return void this.#send(seq, (error as Error).message);
    }
    this.#send(seq, '');
    this.#queryStreams++;
    const streamed = { kind: 'query' as const, stop: () => stream.close() };
    const key = Symbol('query');
    void (async () => {
      try {
        for await (const reply of stream.replies) {
          if (this.#closed) break;
          this.#send(seq, '', queryReplyRecord(reply));
        }
      } finally {
        stream.close();
        this.#queryStreams--;
        this.#queries.delete(key);
        if (!this.#closed) this.#send(seq, '', QUERY_DONE_RECORD);
      }
    })();
    this.#queries.set(key, streamed);
  }

  /** Running queries, closed with the connection. */
  readonly #queries = new Map<symbol, Stream>();

  /** The body of the current request (Go decodes it into the command's struct). */
  async #body(): Promise<Record<string, unknown>> {
    const body = asStruct(await this.#next());
    if (body === undefined) throw new CloseConnection('a request body that is not a map');
    return body;
  }

  /** The next request value, once the client has taken our replies: a client that does not read gets no more answers, and costs no more memory. */
  async #next(): Promise<unknown> {
    while (this.#pausedForOutput && !this.#closed && this.#drained !== undefined) await this.#drained.promise;
    if (this.#closed) throw new CloseConnection('closed');
    return this.#nextQueued();
  }

  #nextQueued(): Promise<unknown> {
    const queued = this.#reader.shift();
    if (queued !== undefined) {
      this.#updateReading();
      return Promise.resolve(queued.value);
    }
    return new Promise((resolve, reject) => {
      this.#waiting = () => {
        if (this.#closed) return reject(new CloseConnection('closed'));
        const next = this.#reader.shift();
        if (next === undefined) return;
        this.#waiting = undefined;
        this.#updateReading();
        resolve(next.value);
      };
    });
  }

  #wake(): void {
    queueMicrotask(() => this.#waiting?.());
  }

  /** Read while the client takes our output and the session keeps up with its requests. */
  #updateReading(): void {
    if (this.#closed) return;
    if (this.#pausedForOutput || this.#reader.backlogged) this.#socket.pause();
    else this.#socket.resume();
  }

  #timePartial(pending: boolean): void {
    if (!pending) {
      clearTimeout(this.#partialTimer);
      this.#partialTimer = undefined;
      return;
    }
    if (this.#partialTimer !== undefined) return;
    const ms = this.#options.limits.requestTimeoutMs;
    this.#partialTimer = setTimeout(() => this.#fail(`a request incomplete after ${ms} ms`), ms);
    this.#partialTimer.unref();
  }

  /**
   * Write a header and its body as one chunk. `droppable` records (stream, monitor) are dropped
   * while the client is behind by the high-water mark; anything else that would put it twice as
   * far behind closes the connection. Returns whether it was written.
   */
  #send(seq: Seq, error: string, body?: object, kind: 'reply' | 'droppable' = 'reply'): boolean {
    if (this.#closed) return false;
    const header = encodeValue(responseHeader(seq, error));
    const bytes = body === undefined ? header : Buffer.concat([header, encodeValue(body)]);
    const { outputHighWaterBytes } = this.#options.limits;
    const behind = this.#socket.writableLength;
    if (kind === 'droppable' && behind + bytes.length > outputHighWaterBytes) {
      this.#options.counters.droppedRecords++;
      return false;
    }
    if (behind + bytes.length > 2 * outputHighWaterBytes) {
      this.#fail(`the client is not reading (${behind} bytes unread)`);
      return false;
    }
    const written = this.#socket.write(bytes);
    const { counters } = this.#options;
    if (this.#socket.writableLength > counters.maxOutputBufferedBytes) counters.maxOutputBufferedBytes = this.#socket.writableLength;
    if (!written || this.#socket.writableLength > outputHighWaterBytes) {
      this.#pausedForOutput = true;
      if (this.#drained === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        this.#drained = { promise, resolve };
      }
      this.#updateReading();
    }
    return true;
  }

  #fail(reason: string): void {
    if (this.#closed) return;
    this.#options.onProblem(reason);
    this.#socket.destroy();
    this.#cleanup();
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#partialTimer);
    clearTimeout(this.#handshakeTimer);
    for (const stream of this.#streams.values()) stream.stop();
    this.#streams.clear();
    this.#monitor?.stop();
    this.#monitor = undefined;
    for (const query of this.#queries.values()) query.stop();
    for (const { timer } of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
    this.#drained?.resolve();
    this.#waiting?.();
  }
}

/** A field of the wrong kind: Go's decode fails and the handler returns an error (connection closed). */
function bad(field: string): never {
  throw new CloseConnection(`decode failed: field ${field}`);
}

async function errorOf(action: () => unknown): Promise<string> {
  try {
    await action();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

function define(target: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Compared in constant time (hashes of equal length), unlike Serf's ==. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
