/**
 * The Serf RPC server (src/serf-rpc/) against a scripted backend: Serf's session rules and error
 * texts (serf cmd/serf/command/agent/ipc.go; serf-protocol §6), the bytes of its replies, the
 * streams, and the bounds a hostile client meets. The real `serf` CLI is in serf-rpc.test.ts.
 */
import { encode } from '@msgpack/msgpack';
import { afterEach, describe, expect, it } from 'vitest';
import type { RpcEvent, RpcLogLine, RpcMember, RpcQueryReply, SerfRpcBackend } from '../src/serf-rpc/backend.js';
import { encodeValue } from '../src/serf-rpc/codec.js';
import { membersBody, responseHeader } from '../src/serf-rpc/records.js';
import { startSerfRpcServer, type SerfRpcServer } from '../src/serf-rpc/server.js';
import type { SerfRpcLimits } from '../src/serf-rpc/protocol.js';
import { rawClient, type RawClient } from './serf-rpc-client.js';

const MEMBER: RpcMember = { name: 'a', addr: new Uint8Array([127, 0, 0, 1]), port: 23090, tags: { role: 'lb' }, status: 'alive', protocol: [1, 5, 2], delegate: [2, 5, 5] };

function member(name: string, status: RpcMember['status'], tags: Record<string, string>): RpcMember {
  return { ...MEMBER, name, status, tags };
}

/** A backend whose state the test sets and whose calls it records. */
function fakeBackend() {
  const eventListeners = new Set<(event: RpcEvent) => void>();
  const logListeners = new Set<(line: RpcLogLine) => void>();
  const calls: Array<[string, ...unknown[]]> = [];
  const state = {
    members: [MEMBER] as RpcMember[],
    tags: { role: 'lb' } as Record<string, string>,
    logs: [] as RpcLogLine[],
    queryReplies: [] as RpcQueryReply[],
  };
  const backend: SerfRpcBackend = {
    members: () => state.members,
    join: async (addresses, replay) => {
      calls.push(['join', addresses, replay]);
      return addresses.includes('bad') ? { num: 0, error: '1 error occurred:\n\t* Failed to join bad: no\n\n' } : { num: addresses.length, error: '' };
    },
    leave: async () => void calls.push(['leave']),
    shutdownAfterLeave: () => void calls.push(['shutdown']),
    forceLeave: async (node, prune) => void calls.push(['force-leave', node, prune]),
    userEvent: (name, payload, coalesce) => {
      if (payload.length > 512) throw new Error('user event exceeds configured limit of 512 bytes before encoding');
      calls.push(['event', name, Buffer.from(payload).toString(), coalesce]);
    },
    query: (params) => {
      calls.push(['query', params]);
      if (params.name === 'big') throw new Error('query exceeds limit of 1024 bytes');
      const replies = [...state.queryReplies];
      let closed = false;
      return {
        deadline: Date.now() + 100,
        replies: (async function* () {
          for (const reply of replies) {
            if (closed) return;
            yield reply;
          }
        })(),
        close: () => {
          closed = true;
        },
      };
    },
    tags: () => ({ ...state.tags }),
    setTags: async (tags) => {
      state.tags = { ...tags };
    },
    keys: async (op) => ({ messages: { b: 'disk full' }, ...(op === 'list' ? { keys: { 'a2V5': 2 } } : {}), numNodes: 3, numErr: 1, numResp: 3, error: '1/3 nodes reported failure' }),
    stats: () => ({ agent: { name: 'a' }, serf: { members: '1' } }),
    coordinate: (node) => (node === 'a' ? { vec: [0.5, 0, 0, 0, 0, 0, 0, 0], error: 1.5, adjustment: 0, height: 1e-5 } : undefined),
    subscribeEvents: (listener) => {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    subscribeLogs: (listener) => {
      for (const line of state.logs) listener(line);
      logListeners.add(listener);
      return () => logListeners.delete(listener);
    },
  };
  return {
    backend,
    state,
    calls,
    emit: (event: RpcEvent) => eventListeners.forEach((l) => l(event)),
    log: (line: RpcLogLine) => logListeners.forEach((l) => l(line)),
    listeners: () => ({ events: eventListeners.size, logs: logListeners.size }),
  };
}

const servers: SerfRpcServer[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.destroy();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(options: { auth?: string; limits?: Partial<SerfRpcLimits> } = {}) {
  const fake = fakeBackend();
  const problems: string[] = [];
  const server = await startSerfRpcServer({ host: '127.0.0.1', port: 0, backend: fake.backend, authToken: options.auth, limits: options.limits, onProblem: (_r, reason) => problems.push(reason) });
  servers.push(server);
  const client = async () => {
    const c = await rawClient({ host: '127.0.0.1', port: server.address.port });
    clients.push(c);
    return c;
  };
  const handshaken = async () => {
    const c = await client();
    expect(await c.call('handshake', 1, { Version: 1 })).toEqual({ Error: '', Seq: 1 });
    return c;
  };
  return { ...fake, server, problems, client, handshaken };
}

describe('Serf RPC session rules (ipc.go)', () => {
  it('answers `serf members` with the bytes of Serf 0.9.4 (serf-protocol §6.3)', async () => {
    const { client } = await setup();
    const c = await client();
    c.writeRaw(Buffer.from('82a7436f6d6d616e64a968616e647368616b65a35365710181a756657273696f6e01', 'hex'));
    c.writeRaw(Buffer.from('82a7436f6d6d616e64b06d656d626572732d66696c7465726564a35365710283a44e616d65a0a6537461747573a0a45461677380', 'hex'));
    const received: Buffer[] = [];
    c.socket.on('data', (chunk: Buffer) => received.push(chunk));
    await c.next();
    await c.next();
    await c.next();
    const expected =
      '82a54572726f72a0a353657101' +
      '82a54572726f72a0a353657102' +
      '81a74d656d62657273918b' +
      'a441646472c4047f000001abDelegateCur05abDelegateMax05abDelegateMin02a44e616d65a161a4506f7274cd5a32abProtocolCur02abProtocolMax05abProtocolMin01a6537461747573a5616c697665a45461677381a4726f6c65a26c62';
    const hex = (s: string) => s.replace(/ab(Delegate|Protocol)(Cur|Max|Min)/g, (_m, a: string, b: string) => 'ab' + Buffer.from(a + b).toString('hex'));
    expect(Buffer.concat(received).toString('hex')).toBe(hex(expected));
  });

  it('closes the connection after "Handshake required"', async () => {
    const { client, calls } = await setup();
    const c = await client();
    expect(await c.call('members', 5)).toEqual({ Error: 'Handshake required', Seq: 5 });
    await c.closed;
    expect(calls).toEqual([]);
  });

  it('refuses another IPC version (the handshake can be retried), then a second handshake', async () => {
    const { client } = await setup();
    const c = await client();
    expect(await c.call('handshake', 1, { Version: 2 })).toEqual({ Error: 'Unsupported IPC version', Seq: 1 });
    expect(await c.call('handshake', 2, { Version: 1 })).toEqual({ Error: '', Seq: 2 });
    expect(await c.call('handshake', 3, { Version: 1 })).toEqual({ Error: 'Handshake already performed', Seq: 3 });
    expect(c.isClosed()).toBe(false);
  });

  it('answers "Unsupported command" and closes', async () => {
    const { handshaken, problems } = await setup();
    const c = await handshaken();
    expect(await c.call('shutdown-everything', 2)).toEqual({ Error: 'Unsupported command', Seq: 2 });
    await c.closed;
    expect(problems).toEqual(["command 'shutdown-everything' not recognized"]);
  });

  it('with a token: "Authentication required" (the body read as the next header, as Serf does), "Invalid authentication token", then commands', async () => {
    const { handshaken } = await setup({ auth: 'sekrit' });
    const c = await handshaken();
    // The real CLI saw this twice for one members-filtered (serf-protocol §6.2).
    expect(await c.call('members-filtered', 2, { Name: '', Status: '', Tags: {} })).toEqual({ Error: 'Authentication required', Seq: 2 });
    expect(await c.next()).toEqual({ Error: 'Authentication required', Seq: 2 });
    expect(await c.call('auth', 3, { AuthKey: 'wrong' })).toEqual({ Error: 'Invalid authentication token', Seq: 3 });
    expect(await c.call('auth', 4, { AuthKey: 'sekrit' })).toEqual({ Error: '', Seq: 4 });
    expect(await c.call('members', 5)).toEqual({ Error: '', Seq: 5 });
    expect(await c.next()).toEqual({ Members: [expect.objectContaining({ Name: 'a' })] });
  });

  it('a body sent with a body-less command is read as the next header: the command runs again (Serf\'s quirk)', async () => {
    const { handshaken } = await setup();
    const c = await handshaken();
    c.write({ Command: 'members', Seq: 9 }, {});
    for (let i = 0; i < 2; i++) {
      expect(await c.next()).toEqual({ Error: '', Seq: 9 });
      expect(await c.next()).toEqual({ Members: [expect.objectContaining({ Name: 'a' })] });
    }
  });

  it('members-filtered: anchored Go regexps on tags, status and name; a missing tag is ""', async () => {
    const { handshaken, state } = await setup();
    state.members = [member('web-1', 'alive', { role: 'web' }), member('web-2', 'failed', { role: 'web' }), member('db-1', 'alive', { role: 'db' }), member('x', 'left', {})];
    const c = await handshaken();
    const names = async (seq: number, body: object) => {
      expect(await c.call('members-filtered', seq, { Name: '', Status: '', Tags: {}, ...body })).toEqual({ Error: '', Seq: seq });
      return ((await c.next()) as { Members: Array<{ Name: string }> }).Members.map((m) => m.Name);
    };
    expect(await names(2, { Tags: { role: 'web' } })).toEqual(['web-1', 'web-2']);
    expect(await names(3, { Tags: { role: 'we' } })).toEqual([]);
    expect(await names(4, { Status: 'alive', Tags: { role: 'web|db' } })).toEqual(['web-1', 'db-1']);
    expect(await names(5, { Name: 'web-\\d' })).toEqual(['web-1', 'web-2']);
    expect(await names(6, { Tags: { role: '' } })).toEqual(['x']);
    expect(await names(7, { Status: 'left|failed' })).toEqual(['web-2', 'x']);
  });

  it('members-filtered with a regexp Go refuses: no reply, the connection closed (as Serf)', async () => {
    const { handshaken, problems } = await setup();
    const c = await handshaken();
    c.write({ Command: 'members-filtered', Seq: 2 }, { Name: '(a', Status: '', Tags: {} });
    await expect(c.next()).rejects.toThrow('connection closed');
    expect(problems[0]).toMatch(/^Failed to compile regex: /);
  });

  it('a body of the wrong shape closes the connection without a reply (Go\'s decode failed)', async () => {
    const { handshaken } = await setup();
    const c = await handshaken();
    c.write({ Command: 'event', Seq: 2 }, { Name: 7, Payload: null, Coalesce: true });
    await expect(c.next()).rejects.toThrow('connection closed');
  });

  it('join, leave, force-leave, event, tags, keys, stats, get-coordinate', async () => {
    const { handshaken, calls, state } = await setup();
    const c = await handshaken();
    expect(await c.call('join', 2, { Existing: ['127.0.0.1:1', '127.0.0.1:2'], Replay: true })).toEqual({ Error: '', Seq: 2 });
    expect(await c.next()).toEqual({ Num: 2 });
    expect(await c.call('join', 3, { Existing: ['bad'], Replay: false })).toEqual({ Error: '1 error occurred:\n\t* Failed to join bad: no\n\n', Seq: 3 });
    expect(await c.next()).toEqual({ Num: 0 });
    expect(await c.call('force-leave', 4, { Node: 'b', Prune: true })).toEqual({ Error: '', Seq: 4 });
    expect(await c.call('event', 5, { Name: 'deploy', Payload: new Uint8Array(Buffer.from('v2')), Coalesce: false })).toEqual({ Error: '', Seq: 5 });
    expect(await c.call('event', 6, { Name: 'big', Payload: new Uint8Array(600), Coalesce: true })).toEqual({ Error: 'user event exceeds configured limit of 512 bytes before encoding', Seq: 6 });
    expect(await c.call('tags', 7, { Tags: { dc: 'x' }, DeleteTags: ['role'] })).toEqual({ Error: '', Seq: 7 });
    expect(state.tags).toEqual({ dc: 'x' });
    expect(await c.call('list-keys', 8)).toEqual({ Error: '1/3 nodes reported failure', Seq: 8 });
    expect(await c.next()).toEqual({ Keys: { a2V5: 2 }, Messages: { b: 'disk full' }, NumErr: 1, NumNodes: 3, NumResp: 3 });
    expect(await c.call('install-key', 9, { Key: 'a2V5' })).toEqual({ Error: '1/3 nodes reported failure', Seq: 9 });
    expect(await c.next()).toEqual({ Keys: null, Messages: { b: 'disk full' }, NumErr: 1, NumNodes: 3, NumResp: 3 });
    expect(await c.call('stats', 10)).toEqual({ Error: '', Seq: 10 });
    expect(await c.next()).toEqual({ agent: { name: 'a' }, serf: { members: '1' } });
    expect(await c.call('get-coordinate', 11, { Node: 'a' })).toEqual({ Error: '', Seq: 11 });
    expect(await c.next()).toEqual({ Coord: { Adjustment: 0, Error: 1.5, Height: 1e-5, Vec: [0.5, 0, 0, 0, 0, 0, 0, 0] }, Ok: true });
    expect(await c.call('leave', 12)).toEqual({ Error: '', Seq: 12 });
    expect(calls).toEqual([
      ['join', ['127.0.0.1:1', '127.0.0.1:2'], true],
      ['join', ['bad'], false],
      ['force-leave', 'b', true],
      ['event', 'deploy', 'v2', false],
      ['leave'],
      ['shutdown'],
    ]);
  });

  it('get-coordinate of an unknown node: Ok false and a zero coordinate with Vec nil (84 ... a3"Vec" c0)', () => {
    // The encoding itself, as serf-protocol §6.4 captured it.
    const bytes = Buffer.from(encodeValue({ Coord: { Adjustment: 0, Error: 0, Height: 0, Vec: null }, Ok: false }));
    expect(bytes.toString('hex')).toContain(Buffer.from('Vec').toString('hex') + 'c0');
    expect(Buffer.from(encodeValue(responseHeader(3, ''))).toString('hex')).toBe('82a54572726f72a0a353657103');
    expect(Buffer.from(encodeValue(membersBody([]))).toString('hex')).toBe('81a74d656d6265727390');
  });
});

describe('Serf RPC streams', () => {
  it('stream: member, user and query events under the stream\'s Seq; respond with the per-connection ID; stop ends it', async () => {
    const { handshaken, emit, listeners } = await setup();
    const c = await handshaken();
    expect(await c.call('stream', 2, { Type: 'member-join,user:deploy,query' })).toEqual({ Error: '', Seq: 2 });
    emit({ kind: 'member', event: 'member-failed', members: [MEMBER] });
    emit({ kind: 'member', event: 'member-join', members: [MEMBER] });
    emit({ kind: 'user', name: 'other', payload: new Uint8Array(0), ltime: 1, coalesce: true });
    emit({ kind: 'user', name: 'deploy', payload: new Uint8Array([1]), ltime: 2, coalesce: false });
    const responded: Uint8Array[] = [];
    emit({ kind: 'query', name: 'greet', payload: new Uint8Array([2]), ltime: 3, deadline: Date.now() + 5000, respond: (p) => void responded.push(p) });
    expect(await c.next()).toEqual({ Error: '', Seq: 2 });
    expect(await c.next()).toEqual({ Event: 'member-join', Members: [expect.objectContaining({ Name: 'a', Status: 'alive' })] });
    expect(await c.next()).toEqual({ Error: '', Seq: 2 });
    expect(await c.next()).toEqual({ Coalesce: false, Event: 'user', LTime: 2, Name: 'deploy', Payload: new Uint8Array([1]) });
    expect(await c.next()).toEqual({ Error: '', Seq: 2 });
    expect(await c.next()).toEqual({ Event: 'query', ID: 1, LTime: 3, Name: 'greet', Payload: new Uint8Array([2]) });
    expect(await c.call('respond', 3, { ID: 1, Payload: new Uint8Array([9]) })).toEqual({ Error: '', Seq: 3 });
    expect(responded).toEqual([new Uint8Array([9])]);
    expect(await c.call('respond', 4, { ID: 7, Payload: null })).toEqual({ Error: 'No pending queries matching ID', Seq: 4 });
    expect(await c.call('stream', 2, { Type: '*' })).toEqual({ Error: 'Stream with given sequence exists', Seq: 2 });
    expect(await c.call('stream', 5, { Type: 'member-join,bogus' })).toEqual({ Error: 'Invalid event filter', Seq: 5 });
    expect(await c.call('stop', 6, { Stop: 2 })).toEqual({ Error: '', Seq: 6 });
    expect(listeners().events).toBe(0);
    expect(await c.call('stop', 7, { Stop: 99 })).toEqual({ Error: '', Seq: 7 });
  });

  it('monitor: replays the kept lines at or above the level, then new ones; one per connection; unknown level', async () => {
    const { handshaken, state, log, listeners } = await setup();
    state.logs = [
      { level: 'DEBUG', text: 'd' },
      { level: 'INFO', text: 'i' },
      { level: 'ERR', text: 'e' },
    ];
    const c = await handshaken();
    expect(await c.call('monitor', 2, { LogLevel: 'loud' })).toEqual({ Error: 'Unknown log level: LOUD', Seq: 2 });
    expect(await c.call('monitor', 3, { LogLevel: 'info' })).toEqual({ Error: '', Seq: 3 });
    log({ level: 'TRACE', text: 't' });
    log({ level: 'WARN', text: 'w' });
    const lines: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      expect(await c.next()).toEqual({ Error: '', Seq: 3 });
      lines.push(await c.next());
    }
    expect(lines).toEqual([{ Log: 'i' }, { Log: 'e' }, { Log: 'w' }]);
    expect(await c.call('monitor', 4, { LogLevel: 'ERR' })).toEqual({ Error: 'Monitor already exists', Seq: 4 });
    expect(await c.call('stop', 5, { Stop: 3 })).toEqual({ Error: '', Seq: 5 });
    expect(listeners().logs).toBe(0);
  });

  it('query: the parameters as Serf sends them, ack/response records under its Seq, then done; an error in the header', async () => {
    const { handshaken, state, calls } = await setup();
    state.queryReplies = [
      { type: 'ack', from: 'b' },
      { type: 'response', from: 'b', payload: new Uint8Array(Buffer.from('hello-from-b\n')) },
    ];
    const c = await handshaken();
    // The real CLI's `serf query greet ping-payload` request (serf-protocol §6.5).
    c.writeRaw(Buffer.from('82a7436f6d6d616e64a57175657279a35365710287ab46696c7465724e6f646573c0aa46696c7465725461677380a44e616d65a56772656574a75061796c6f6164c40c70696e672d7061796c6f6164ab52656c6179466163746f7200aa5265717565737441636bc3a754696d656f757400', 'hex'));
    expect(await c.next()).toEqual({ Error: '', Seq: 2 });
    const records: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      expect(await c.next()).toEqual({ Error: '', Seq: 2 });
      records.push(await c.next());
    }
    expect(records).toEqual([
      { From: 'b', Payload: null, Type: 'ack' },
      { From: 'b', Payload: new Uint8Array(Buffer.from('hello-from-b\n')), Type: 'response' },
      { From: '', Payload: null, Type: 'done' },
    ]);
    expect(calls[0]).toEqual(['query', { name: 'greet', payload: new Uint8Array(Buffer.from('ping-payload')), filterNodes: [], filterTags: new Map(), requestAck: true, relayFactor: 0, timeoutMs: 0 }]);
    expect(await c.call('query', 3, { Name: 'big', Timeout: 3_200_000_000 })).toEqual({ Error: 'query exceeds limit of 1024 bytes', Seq: 3 });
  });
});

describe('Serf RPC bounds (hostile clients)', () => {
  it('closes connections past maxConnections at accept', async () => {
    const { client, server, handshaken } = await setup({ limits: { maxConnections: 2 } });
    await handshaken();
    await handshaken();
    const third = await client();
    await third.closed;
    expect(server.counters.refused).toBe(1);
  });

  it('refuses a huge str32 header before allocating: closed at once, nothing buffered', async () => {
    const { handshaken, problems } = await setup();
    const c = await handshaken();
    // A request header whose Command declares 4 GiB.
    c.writeRaw(Buffer.from([0x82, 0xa7, ...Buffer.from('Command'), 0xdb, 0xff, 0xff, 0xff, 0xff]));
    await c.closed;
    expect(problems).toEqual([`a request larger than ${64 * 1024} bytes`]);
  });

  it('refuses a huge array header and a body over the request bound', async () => {
    const { handshaken, problems } = await setup({ limits: { maxRequestBytes: 4096 } });
    const a = await handshaken();
    a.write({ Command: 'join', Seq: 2 });
    a.writeRaw(Buffer.from([0x81, 0xa8, ...Buffer.from('Existing'), 0xdd, 0x7f, 0xff, 0xff, 0xff]));
    await a.closed;
    const b = await handshaken();
    b.write({ Command: 'event', Seq: 2 }, { Name: 'x', Payload: new Uint8Array(5000), Coalesce: true });
    await b.closed;
    expect(problems).toEqual(['a request larger than 4096 bytes', 'a request larger than 4096 bytes']);
  });

  it('closes a request that never completes (partial timeout) and a connection that never shakes hands', async () => {
    const { client, handshaken, problems } = await setup({ limits: { requestTimeoutMs: 200, handshakeTimeoutMs: 300 } });
    const slow = await handshaken();
    slow.writeRaw(encode({ Command: 'members', Seq: 2 }).subarray(0, 5));
    await slow.closed;
    const silent = await client();
    await silent.closed;
    expect(problems).toEqual(['a request incomplete after 200 ms', 'no handshake within 300 ms']);
  });

  it('with a token, a connection that shakes hands but never authenticates is closed at the same deadline', async () => {
    const { handshaken, problems } = await setup({ auth: 'tok', limits: { handshakeTimeoutMs: 300 } });
    const idle = await handshaken();
    const authed = await handshaken();
    expect(await authed.call('auth', 2, { AuthKey: 'tok' })).toEqual({ Error: '', Seq: 2 });
    await idle.closed;
    expect(problems).toEqual(['no handshake and auth within 300 ms']);
    expect(await authed.call('members', 3)).toEqual({ Error: '', Seq: 3 });
  });

  it('a request dripped one byte at a time within the timeout is answered', async () => {
    const { handshaken } = await setup();
    const c = await handshaken();
    const bytes = encode({ Command: 'members', Seq: 2 });
    for (const byte of bytes) {
      c.writeRaw(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await c.next()).toEqual({ Error: '', Seq: 2 });
  });

  it('bounds the streams of one connection', async () => {
    const { handshaken } = await setup({ limits: { maxStreamsPerConnection: 2 } });
    const c = await handshaken();
    expect(await c.call('stream', 2, { Type: '*' })).toEqual({ Error: '', Seq: 2 });
    expect(await c.call('monitor', 3, { LogLevel: 'INFO' })).toEqual({ Error: '', Seq: 3 });
    expect(await c.call('stream', 4, { Type: '*' })).toEqual({ Error: 'Too many streams on this connection (at most 2)', Seq: 4 });
    expect(await c.call('query', 5, { Name: 'q' })).toEqual({ Error: 'Too many streams on this connection (at most 2)', Seq: 5 });
  });

  it('a client that never reads: stream records are dropped past the high-water mark, memory stays bounded, the connection lives', async () => {
    const highWater = 64 * 1024;
    const { handshaken, emit, server } = await setup({ limits: { outputHighWaterBytes: highWater } });
    const c = await handshaken();
    expect(await c.call('stream', 2, { Type: 'user' })).toEqual({ Error: '', Seq: 2 });
    c.socket.pause();
    const payload = new Uint8Array(400);
    for (let i = 0; i < 20_000; i++) emit({ kind: 'user', name: 'flood', payload, ltime: i, coalesce: false });
    expect(server.counters.droppedRecords).toBeGreaterThan(10_000);
    expect(c.isClosed()).toBe(false);
  });

  it('a client that sends requests and never reads: the server stops answering (and reading) instead of buffering replies', async () => {
    const highWater = 256 * 1024;
    const { handshaken, state, server } = await setup({ limits: { outputHighWaterBytes: highWater } });
    state.members = Array.from({ length: 2000 }, (_, i) => member(`m${i}`, 'alive', { role: 'x'.repeat(20) }));
    const c = await handshaken();
    c.socket.pause();
    // About 200 kB per reply: 200 requests would be 40 MB of replies, more than loopback's socket buffers hold.
    const request = Buffer.from(encode({ Command: 'members', Seq: 3 }));
    for (let i = 0; i < 200; i++) c.socket.write(request);
    const start = Date.now();
    while (server.counters.maxOutputBufferedBytes < highWater && Date.now() - start < 5000) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.counters.maxOutputBufferedBytes).toBeGreaterThanOrEqual(highWater);
    expect(server.counters.maxOutputBufferedBytes).toBeLessThanOrEqual(2 * highWater);
    expect(server.connections).toBe(1);
    // Once it reads, every request is answered: nothing lost, nothing closed.
    c.socket.resume();
    for (let i = 0; i < 200; i++) {
      expect(await c.next()).toEqual({ Error: '', Seq: 3 });
      expect(((await c.next()) as { Members: unknown[] }).Members).toHaveLength(2000);
    }
    expect(server.counters.maxOutputBufferedBytes).toBeLessThanOrEqual(2 * highWater);
  });

  it('unknown command from an unauthenticated client is "Authentication required", not dispatched', async () => {
    const { handshaken, calls } = await setup({ auth: 'tok' });
    const c = await handshaken();
    expect(await c.call('leave', 2)).toEqual({ Error: 'Authentication required', Seq: 2 });
    expect(calls).toEqual([]);
  });

  it('a connection that closes mid-stream leaves no subscription behind', async () => {
    const { handshaken, listeners } = await setup();
    const c = await handshaken();
    await c.call('stream', 2, { Type: '*' });
    await c.call('monitor', 3, { LogLevel: 'INFO' });
    c.socket.destroy();
    const start = Date.now();
    while ((listeners().events > 0 || listeners().logs > 0) && Date.now() - start < 2000) await new Promise((r) => setTimeout(r, 10));
    expect(listeners()).toEqual({ events: 0, logs: 0 });
  });
});

