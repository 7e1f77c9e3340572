import { decodePacket, encodePacket as encodeSwim, type AliveMessage, type Message, type PushPullEntry } from '@swim/core';
import { Keyring } from '@swim/encryption';
import { afterEach, describe, expect, it } from 'vitest';
import { checkClientBytes, WS_CLOSE, zeroWsGatewayCounters, type WsGatewayOptions } from '../src/node/index.js';
import { ClientFilter } from '../src/node/client-filter.js';
import { credentialKeys } from '../src/node/credential.js';
import { resolveGatewayOptions } from '../src/node/gateway-options.js';
import { pool, waitFor } from './helpers.js';
import { rawJoin } from './raw.js';
import { messagesOf, receivedMessages, udpPeer } from './udp-peer.js';
import { KnownMoves, KNOWN_MOVES_LIMIT } from '../src/node/known-moves.js';
import { encodePacket } from '../src/protocol/framing.js';
import type { UdpTransport } from '@swim/transport-udp';

const SECRET = 'a-cluster-secret-of-some-length';
const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64');

describe('member credential', () => {
  it('is the same for every gateway with the same secret or token, and differs by name and by key', () => {
    const a = credentialKeys({ credentialSecret: SECRET });
    const b = credentialKeys({ credentialSecret: SECRET });
    expect(a.source).toBe('secret');
    expect(a.sign('tab-1')).toBe(b.sign('tab-1'));
    expect(b.verify('tab-1', a.sign('tab-1'))).toBe(true);
    expect(b.verify('tab-2', a.sign('tab-1'))).toBe(false);
    expect(a.sign('tab-1')).toMatch(/^[A-Za-z0-9_-]{43}$/); // base64url of 32 bytes
    const other = credentialKeys({ credentialSecret: `${SECRET}!` });
    expect(other.verify('tab-1', a.sign('tab-1'))).toBe(false);
    // The secret wins over the token; the token is used without a secret.
    expect(credentialKeys({ credentialSecret: SECRET, token: 't' }).sign('x')).toBe(a.sign('x'));
    const byToken = credentialKeys({ token: 'join-token' });
    expect(byToken.source).toBe('token');
    expect(credentialKeys({ token: 'join-token' }).verify('x', byToken.sign('x'))).toBe(true);
    expect(byToken.sign('x')).not.toBe(a.sign('x'));
  });

  it('refuses what is not a credential: empty, truncated, longer, another name', () => {
    const keys = credentialKeys({ credentialSecret: SECRET });
    const good = keys.sign('tab');
    for (const bad of ['', good.slice(0, -1), `${good}A`, keys.sign('tab2'), good.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))]) {
      expect(keys.verify('tab', bad), bad).toBe(false);
    }
  });

  it('from a keyring: signed with the primary, verified with any key, following a rotation', () => {
    const ring = Keyring.from([KEY_A, KEY_B]);
    const keys = credentialKeys({ keyring: ring });
    expect(keys.source).toBe('keyring');
    const signedWithA = keys.sign('tab');
    const other = Keyring.from([KEY_B, KEY_A]);
    const otherKeys = credentialKeys({ keyring: other });
    expect(otherKeys.verify('tab', signedWithA)).toBe(true);
    // Once A is removed from the other gateway's ring, A's credentials no longer verify there.
    other.remove(KEY_A);
    expect(otherKeys.verify('tab', signedWithA)).toBe(false);
    ring.use(KEY_B);
    expect(otherKeys.verify('tab', keys.sign('tab'))).toBe(true);
  });

  it('is random per process without secret, token or keyring: another gateway does not verify it', () => {
    const a = credentialKeys({});
    expect(a.source).toBe('random');
    expect(a.verify('tab', a.sign('tab'))).toBe(true);
    expect(credentialKeys({}).verify('tab', a.sign('tab'))).toBe(false);
  });

  it('gateway options: credentialSecret is checked with every other problem listed', () => {
    const both = () => resolveGatewayOptions({ credentialSecret: 'short', maxSessions: 0 });
    expect(both).toThrow(/2 problems/);
    expect(both).toThrow(/- credentialSecret must be at least 16 characters, got 5/);
    expect(both).toThrow(/- maxSessions must be a positive integer/);
    expect(() => resolveGatewayOptions({ credentialSecret: 42 } as unknown as WsGatewayOptions)).toThrow(/credentialSecret must be a string/);
    expect(resolveGatewayOptions({ credentialSecret: SECRET }).credentials.source).toBe('secret');
    expect(resolveGatewayOptions({ token: 'tok' }).credentials.source).toBe('token');
    expect(resolveGatewayOptions({ encryption: { keyring: Keyring.from([KEY_A]) } }).credentials.source).toBe('keyring');
  });
});

describe('verify: a member announces only the move its gateway admitted', () => {
  const RELAY = '127.0.0.1:5002';
  const OLD = '127.0.0.1:5001';
  const range = { min: 1, max: 2 };
  const alive = (node: string, address: string, movedFrom?: string): AliveMessage => ({
    type: 'alive',
    incarnation: 3,
    node,
    address,
    meta: new Uint8Array(0),
    protocol: range,
    ...(movedFrom === undefined ? {} : { movedFrom }),
  });
  const entry = (name: string, address: string, movedFrom?: string): PushPullEntry => ({
    name,
    address,
    meta: new Uint8Array(0),
    incarnation: 3,
    state: 'alive',
    protocol: range,
    ...(movedFrom === undefined ? {} : { movedFrom }),
  });
  const pushPull = (...members: PushPullEntry[]): Message => ({ type: 'push-pull', join: false, members, userState: new Uint8Array(0) });
  const bytes = (...messages: Message[]) => encodeSwim(messages).slice();

  it('passes the move of a session admitted from that address, and drops any other as forged-move', () => {
    expect(checkClientBytes(bytes(alive('tab', RELAY, OLD)), 'tab', RELAY, OLD)).toBeUndefined();
    expect(checkClientBytes(bytes(alive('tab', RELAY)), 'tab', RELAY, OLD)).toBeUndefined();
    // A session that joined here afresh announces no move; one admitted from OLD no other.
    expect(checkClientBytes(bytes(alive('tab', RELAY, OLD)), 'tab', RELAY, undefined)).toBe('forged-move');
    expect(checkClientBytes(bytes(alive('tab', RELAY, '127.0.0.1:9')), 'tab', RELAY, OLD)).toBe('forged-move');
    expect(checkClientBytes(bytes(pushPull(entry('tab', RELAY, OLD))), 'tab', RELAY, OLD)).toBeUndefined();
    expect(checkClientBytes(bytes(pushPull(entry('tab', RELAY, OLD))), 'tab', RELAY, undefined)).toBe('forged-move');
    // The old checks still come first: its name at another address.
    expect(checkClientBytes(bytes(alive('tab', OLD, RELAY)), 'tab', RELAY, OLD)).toBe('alive-address');
  });

  it('the gateway counts forged moves, and takes out of what a client says about other members the moves it cannot prove', () => {
    const counters = zeroWsGatewayCounters();
    // This gateway admitted one move: "mine", from 127.0.0.1:6099 to its relay 127.0.0.1:6100.
    const admitted = (name: string, address: string, movedFrom: string) => name === 'mine' && address === '127.0.0.1:6100' && movedFrom === '127.0.0.1:6099';
    const filter = new ClientFilter({ verify: true, seed: undefined, seedName: undefined }, counters, admitted);
    expect(filter.inspect(bytes(alive('tab', RELAY, OLD)), 'tab', RELAY, '127.0.0.1:7946', undefined)).toBeUndefined();
    expect(counters.spoof['forged-move']).toBe(1);
    expect(counters.spoofDropped).toBe(1);
    // Another member's move, re-gossiped: taken out (a client cannot prove it), the rest relayed.
    const ping: Message = { type: 'ping', seq: 1, target: 'y', sourceAddress: RELAY, sourceName: 'tab' };
    const out = filter.inspect(bytes(ping, alive('other', '127.0.0.1:6000', '127.0.0.1:5999'), pushPull(entry('tab', RELAY), entry('x', '127.0.0.1:7000', '127.0.0.1:6999'))), 'tab', RELAY, '127.0.0.1:7946', undefined);
    expect(out).toBeDefined();
    const decoded = decodePacket(out!);
    expect(decoded.ok).toBe(true);
    const messages = decoded.ok ? decoded.messages : [];
    expect(messages.map((m) => m.type)).toEqual(['ping', 'push-pull']);
    const second = messages[1];
    const members = second?.type === 'push-pull' ? second.members : [];
    expect(members.map((m) => [m.name, m.movedFrom])).toEqual([['tab', undefined]]);
    expect(counters.foreignMovesStripped).toBe(2);
    // A packet of nothing but unproved moves is not sent at all.
    expect(filter.inspect(bytes(alive('other', '127.0.0.1:6000', '127.0.0.1:5999')), 'tab', RELAY, '127.0.0.1:7946', undefined)).toBeUndefined();
    expect(counters.foreignMovesStripped).toBe(3);
    expect(counters.spoofDropped, 'not a spoof: only the forged move above').toBe(1);
    // A rewrite keeps the version the client wrote in: a push-pull request rewritten as version 1
    // would be answered in version 1, without the ranges and moves of its entries.
    const v2 = encodeSwim([pushPull(entry('tab', RELAY), entry('x', '127.0.0.1:7000', '127.0.0.1:6999'))], 2).slice();
    expect(v2[0]).toBe(2);
    const rewrittenV2 = filter.inspect(v2, 'tab', RELAY, undefined, undefined)!;
    expect(rewrittenV2[0], 'the version byte').toBe(2);
    expect(decodePacket(rewrittenV2)).toMatchObject({ ok: true, version: 2 });
    expect(counters.foreignMovesStripped).toBe(4);
    // Without foreign moves, or with only moves this gateway admitted, the bytes go out untouched.
    const plain = bytes(alive('other', '127.0.0.1:6000'));
    expect(filter.inspect(plain, 'tab', RELAY, '127.0.0.1:7946', undefined)).toBe(plain);
    const ours = bytes(alive('mine', '127.0.0.1:6100', '127.0.0.1:6099'), pushPull(entry('mine', '127.0.0.1:6100', '127.0.0.1:6099')));
    expect(filter.inspect(ours, 'tab', RELAY, '127.0.0.1:7946', undefined)).toBe(ours);
    // The same name moved from elsewhere, or to another address, is not the move admitted.
    expect(decodePacket(filter.inspect(bytes(ping, alive('mine', '127.0.0.1:6100', '127.0.0.1:1'), alive('mine', '127.0.0.1:6101', '127.0.0.1:6099')), 'tab', RELAY, '127.0.0.1:7946', undefined)!)).toMatchObject({
      ok: true,
      messages: [{ type: 'ping' }],
    });
    expect(counters.foreignMovesStripped).toBe(6);
  });
});

describe('foreign moves proved by the cluster: seen arriving at a relay first (known-moves.ts)', () => {
  const made = pool();
  const opened: UdpTransport[] = [];
  afterEach(async () => {
    await made.closeAll();
    await Promise.all(opened.splice(0).map((t) => t.close()));
  });
  const range = { min: 1, max: 2 };
  const alive = (node: string, address: string, movedFrom: string, incarnation = 3): AliveMessage => ({ type: 'alive', incarnation, node, address, meta: new Uint8Array(0), protocol: range, movedFrom });

  it('a move that reached a relay from the cluster passes when a client gossips it on; any other is still taken out', async () => {
    const gateway = await made.gateway({ joinTimeoutMs: 60_000 });
    const peer = await udpPeer(opened);
    const client = await rawJoin(gateway.url, { name: 'tab' });
    const gossip = encodeSwim([
      alive('moved', '127.0.0.1:6000', '127.0.0.1:5999'),
      // The same name, not from there or not to there: not the move seen.
      alive('moved', '127.0.0.1:6001', '127.0.0.1:5999'),
      alive('moved', '127.0.0.1:6000', '127.0.0.1:5998'),
      // Never seen.
      alive('stranger', '127.0.0.1:7000', '127.0.0.1:6999'),
    ]).slice();
    const relayed = async (count: number) => {
      client.ws.send(encodePacket(peer.transport.address, gossip));
      expect(await waitFor(() => peer.packets.length === count)).toBe(true);
      return (messagesOf(peer.packets[count - 1]!.bytes) as AliveMessage[]).map((m) => [m.node, m.address, m.movedFrom]);
    };
    // Before the cluster told the gateway anything, all four are unproved: the packet has nothing left and is not sent.
    client.ws.send(encodePacket(peer.transport.address, gossip));
    expect(await waitFor(() => gateway.counters.foreignMovesStripped === 4)).toBe(true);
    expect(peer.packets).toEqual([]);
    // A member of the cluster (the UDP peer) tells the tab the move: it arrives at the tab's relay.
    peer.transport.sendPacket(client.welcome.address, encodeSwim([alive('moved', '127.0.0.1:6000', '127.0.0.1:5999')], 2).slice());
    expect(await waitFor(() => receivedMessages(client.frames).some((m) => m.type === 'alive' && m.node === 'moved'))).toBe(true);
    expect(await relayed(1)).toEqual([['moved', '127.0.0.1:6000', '127.0.0.1:5999']]);
    expect(gateway.counters.foreignMovesStripped).toBe(4 + 3);
    // A later move of the same member replaces it: the earlier one no longer passes.
    peer.transport.sendPacket(client.welcome.address, encodeSwim([alive('moved', '127.0.0.1:6002', '127.0.0.1:6000', 4)], 2).slice());
    expect(await waitFor(() => receivedMessages(client.frames).filter((m) => m.type === 'alive' && m.node === 'moved').length === 2)).toBe(true);
    client.ws.send(encodePacket(peer.transport.address, encodeSwim([alive('moved', '127.0.0.1:6000', '127.0.0.1:5999'), alive('moved', '127.0.0.1:6002', '127.0.0.1:6000', 4)]).slice()));
    expect(await waitFor(() => peer.packets.length === 2)).toBe(true);
    expect((messagesOf(peer.packets[1]!.bytes) as AliveMessage[]).map((m) => [m.node, m.address, m.movedFrom])).toEqual([['moved', '127.0.0.1:6002', '127.0.0.1:6000']]);
  });

  it('what a client says does not prove anything: a move one tab gossips to another tab of the same gateway stays unproved', async () => {
    const gateway = await made.gateway({ joinTimeoutMs: 60_000 });
    const peer = await udpPeer(opened);
    const mallory = await rawJoin(gateway.url, { name: 'mallory' });
    const tab = await rawJoin(gateway.url, { name: 'tab' });
    const forged = encodeSwim([alive('victim', '127.0.0.1:9', '127.0.0.1:6000')], 2).slice();
    // To another tab of this gateway (handed over in-process), then to the cluster: taken out both times.
    mallory.ws.send(encodePacket(tab.welcome.address, forged));
    mallory.ws.send(encodePacket(peer.transport.address, forged));
    expect(await waitFor(() => gateway.counters.foreignMovesStripped === 2)).toBe(true);
    tab.ws.send(encodePacket(peer.transport.address, forged));
    expect(await waitFor(() => gateway.counters.foreignMovesStripped === 3)).toBe(true);
    expect(peer.packets).toEqual([]);
  });

  it('the alive-with-move marker it scans for is what the codec writes', () => {
    const bytes = encodeSwim([alive('moved', '127.0.0.1:6000', '127.0.0.1:5999')], 2);
    expect([...bytes.subarray(1, 3)]).toEqual([0x98, 0x04]);
    const known = new KnownMoves();
    known.learn(encodeSwim([{ type: 'ping', seq: 1, target: 'x', sourceName: 'y', sourceAddress: '' }, alive('moved', '127.0.0.1:6000', '127.0.0.1:5999')], 2));
    expect(known.holds('moved', '127.0.0.1:6000', '127.0.0.1:5999')).toBe(true);
    // Without a move, nothing to learn (and nothing decoded); an older incarnation does not replace a newer one.
    known.learn(encodeSwim([alive('moved', '127.0.0.1:7000', '127.0.0.1:6000', 2)], 2));
    expect(known.holds('moved', '127.0.0.1:6000', '127.0.0.1:5999')).toBe(true);
    expect(known.size).toBe(1);
  });

  it('remembers at most KNOWN_MOVES_LIMIT moves, forgetting the oldest news first', () => {
    const known = new KnownMoves();
    for (let i = 0; i <= KNOWN_MOVES_LIMIT; i++) known.learn(encodeSwim([alive(`m${i}`, `10.0.0.1:${1000 + (i % 60000)}`, '10.0.0.2:1')], 2));
    expect(known.size).toBe(KNOWN_MOVES_LIMIT);
    expect(known.holds('m0', '10.0.0.1:1000', '10.0.0.2:1')).toBe(false);
    expect(known.holds(`m${KNOWN_MOVES_LIMIT}`, `10.0.0.1:${1000 + KNOWN_MOVES_LIMIT}`, '10.0.0.2:1')).toBe(true);
  });
});

describe('moving a member between gateways (handshake)', () => {
  const made = pool();
  afterEach(made.closeAll);
  // Nothing here joins a cluster: keep join deadlines out of the way.
  const options: WsGatewayOptions = { credentialSecret: SECRET, joinTimeoutMs: 60_000 };

  it('welcomes with a credential; another gateway with the same secret moves the member with it', async () => {
    const a = await made.gateway(options);
    const b = await made.gateway(options);
    const first = await rawJoin(a.url, { name: 'tab' });
    expect(first.welcome.credential).toBe(credentialKeys({ credentialSecret: SECRET }).sign('tab'));
    expect(first.welcome.moved).toBeUndefined();
    const moved = await rawJoin(b.url, { name: 'tab', credential: first.welcome.credential, from: first.welcome.address });
    expect(moved.welcome).toMatchObject({ moved: true, resumed: false, credential: first.welcome.credential });
    expect(moved.welcome.address).not.toBe(first.welcome.address);
    expect(b.counters).toMatchObject({ moved: 1, welcomed: 1, refusedMove: 0 });
    expect(b.sessions()).toMatchObject([{ name: 'tab', address: moved.welcome.address, joined: true }]);
    // A resume of the moved session is a plain resume, not a second move.
    moved.ws.terminate();
    expect(await waitFor(() => b.sessions()[0]?.connected === false)).toBe(true);
    const again = await rawJoin(b.url, { name: 'tab', resume: moved.welcome.resume, credential: first.welcome.credential, from: moved.welcome.address });
    expect(again.welcome).toMatchObject({ resumed: true, address: moved.welcome.address });
    expect(again.welcome.moved).toBeUndefined();
    expect(b.counters.moved).toBe(1);
    first.ws.close();
    again.ws.close();
  });

  it('refuses a move without a credential, with a wrong one, or one of another cluster (4010), and admits no member for it', async () => {
    const a = await made.gateway(options);
    const b = await made.gateway(options);
    const stranger = await made.gateway({ credentialSecret: 'another-cluster-secret', joinTimeoutMs: 60_000 });
    const first = await rawJoin(a.url, { name: 'tab' });
    const strangers = await rawJoin(stranger.url, { name: 'tab' });
    await expect(rawJoin(b.url, { name: 'tab', from: first.welcome.address })).rejects.toThrow(`closed ${WS_CLOSE.moveRefused} a move needs the member credential`);
    await expect(rawJoin(b.url, { name: 'tab', from: first.welcome.address, credential: 'x'.repeat(43) })).rejects.toThrow(
      `closed ${WS_CLOSE.moveRefused} member credential does not verify`,
    );
    await expect(rawJoin(b.url, { name: 'tab', from: first.welcome.address, credential: strangers.welcome.credential })).rejects.toThrow(`${WS_CLOSE.moveRefused}`);
    // The credential of another name does not move this one.
    const other = await rawJoin(a.url, { name: 'other' });
    await expect(rawJoin(b.url, { name: 'tab', from: first.welcome.address, credential: other.welcome.credential })).rejects.toThrow(`${WS_CLOSE.moveRefused}`);
    expect(b.counters).toMatchObject({ refusedMove: 4, moved: 0, relaysOpened: 0 });
    expect(b.sessions()).toEqual([]);
    for (const c of [first, strangers, other]) c.ws.close();
  });

  it('without the join token a move is refused at hello (4001), credential or not', async () => {
    const a = await made.gateway({ ...options, token: 'tok' });
    const b = await made.gateway({ ...options, token: 'tok' });
    const first = await rawJoin(a.url, { name: 'tab', token: 'tok' });
    await expect(rawJoin(b.url, { name: 'tab', credential: first.welcome.credential, from: first.welcome.address })).rejects.toThrow(`closed ${WS_CLOSE.unauthorized}`);
    expect(b.counters).toMatchObject({ refusedToken: 1, moved: 0, relaysOpened: 0 });
    first.ws.close();
  });

  it('a name held here for a reconnect is moved back with a valid credential, not with a wrong one', async () => {
    const a = await made.gateway({ ...options, reconnectGraceMs: 60_000 });
    const b = await made.gateway(options);
    const onA = await rawJoin(a.url, { name: 'tab' });
    onA.ws.terminate();
    expect(await waitFor(() => a.sessions()[0]?.connected === false)).toBe(true);
    const onB = await rawJoin(b.url, { name: 'tab', credential: onA.welcome.credential, from: onA.welcome.address });
    await expect(rawJoin(a.url, { name: 'tab', credential: 'nope', from: onB.welcome.address })).rejects.toThrow(`${WS_CLOSE.nameTaken}`);
    const back = await rawJoin(a.url, { name: 'tab', credential: onA.welcome.credential, from: onB.welcome.address });
    expect(back.welcome.moved).toBe(true);
    expect(back.welcome.address).not.toBe(onA.welcome.address);
    expect(a.sessions()).toMatchObject([{ name: 'tab', address: back.welcome.address, connected: true }]);
    onB.ws.close();
    back.ws.close();
  });
});

describe('WsTransport with several gateways', () => {
  const made = pool();
  afterEach(made.closeAll);
  const options: WsGatewayOptions = { credentialSecret: SECRET, joinTimeoutMs: 60_000, verify: false };
  const fast = { initialDelayMs: 50, maxDelayMs: 500 };

  it('connects through the first gateway that welcomes, in list order', async () => {
    const a = await made.gateway(options);
    const b = await made.gateway(options);
    const dead = 'ws://127.0.0.1:1/';
    const t = await made.client(a, { url: [dead, b.url, a.url], name: 'tab' });
    expect(t.url).toBe(b.url);
    expect(b.sessions().map((s) => s.name)).toEqual(['tab']);
    expect(a.sessions()).toEqual([]);
  });

  it('rejects with every gateway named when none welcomes', async () => {
    await expect(made.client(await made.gateway(options), { url: ['ws://127.0.0.1:1/', 'ws://127.0.0.1:2/'], name: 'tab' })).rejects.toThrow(
      /no gateway welcomed the member: .*127\.0\.0\.1:1.*; .*127\.0\.0\.1:2/,
    );
  });

  it('moves to the next gateway when its gateway goes away, and reports the new address', async () => {
    const a = await made.gateway(options);
    const b = await made.gateway(options);
    const t = await made.client(a, { url: [a.url, b.url], name: 'tab', reconnect: fast });
    const before = t.address;
    const addresses: string[] = [];
    t.onAddressChange((address) => addresses.push(address));
    await a.close();
    expect(await waitFor(() => t.state === 'open' && t.url === b.url, 10_000), `state ${t.state}, url ${t.url}`).toBe(true);
    expect(t.address).toBe(b.sessions()[0]!.address);
    expect(t.address).not.toBe(before);
    expect(addresses).toEqual([t.address]);
    expect(t.counters.moves).toBe(1);
    expect(b.counters.moved).toBe(1);
  });

  it('moves to a new relay on its own gateway after a restart (one URL)', async () => {
    const a = await made.gateway(options);
    const t = await made.client(a, { name: 'tab', reconnect: fast });
    const before = t.address;
    const addresses: string[] = [];
    t.onAddressChange((address) => addresses.push(address));
    const port = a.port;
    await a.close();
    const restarted = await made.gateway({ ...options, port });
    expect(await waitFor(() => t.state === 'open' && restarted.sessions().length === 1, 10_000), `state ${t.state}`).toBe(true);
    expect(t.address).not.toBe(before);
    expect(addresses).toEqual([t.address]);
  });

  it('closes with 4010 when every gateway refuses the move (a random credential key: no shared secret)', async () => {
    const noSecret: WsGatewayOptions = { joinTimeoutMs: 60_000, verify: false };
    const a = await made.gateway(noSecret);
    const b = await made.gateway(noSecret);
    const t = await made.client(a, { url: [a.url, b.url], name: 'tab', reconnect: fast });
    const port = a.port;
    await a.close();
    // A restarted a with another random key: nobody verifies the old credential.
    await made.gateway({ ...noSecret, port });
    expect(await waitFor(() => t.state === 'closed', 10_000), `state ${t.state}`).toBe(true);
    expect(t.closeCause?.code).toBe(WS_CLOSE.moveRefused);
    expect(b.counters.refusedMove).toBeGreaterThanOrEqual(1);
    expect(b.sessions()).toEqual([]);
  });

  it('refuses a new address that is not a move, as before (a gateway that ignores `from`)', async () => {
    // A gateway without the move fields: emulated by one that never verifies credentials would refuse (4010);
    // an old gateway welcomes afresh instead. The client must not take that address.
    const { WebSocketServer } = await import('ws');
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    let n = 0;
    server.on('connection', (ws) =>
      ws.once('message', () => {
        n++;
        ws.send(JSON.stringify({ op: 'welcome', v: 1, address: `127.0.0.1:${1000 + n}`, maxPacketBytes: 1400, resume: 'r', resumed: false, credential: 'c' }));
        if (n === 1) setTimeout(() => ws.terminate(), 10);
      }),
    );
    const url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const t = await made.client(await made.gateway(options), { url, name: 'tab', reconnect: fast });
    expect(t.address).toBe('127.0.0.1:1001');
    expect(await waitFor(() => t.state === 'closed', 10_000), `state ${t.state}`).toBe(true);
    expect(t.closeCause).toMatchObject({ code: WS_CLOSE.resumeRejected, reason: 'address changed' });
    expect(t.address).toBe('127.0.0.1:1001');
    server.close();
  });
});
