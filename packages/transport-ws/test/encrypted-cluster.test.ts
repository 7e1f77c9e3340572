/**
 * Browser members in an encrypted cluster, over real sockets: UDP members whose transports are
 * wrapped with secureTransport and a gateway whose relays hold the cluster keyring. The browser
 * side stays plaintext (to the gateway); what a relay sends into the cluster is encrypted.
 */
import { encodePacket as encodeSwim } from '@swim/core';
import { generateKey, Keyring, KEY_OPS_SERVICE, keyOpsService, runKeyOp, secureTransport, type SecureTransport } from '@swim/encryption';
import { Member, type Transport } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWsTransport, createWsGateway, type WsGateway, type WsTransport } from '../src/node/index.js';
import { encodePacket } from '../src/protocol/framing.js';
import { waitFor } from './helpers.js';
import { rawJoin } from './raw.js';

const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000 };
const K1 = generateKey();
const K2 = generateKey();
/** Names long and odd enough that finding one in a datagram is no accident. */
const GATEWAY = 'gateway-member-aa';
const UDP_NAMES = ['udp-member-bb', 'udp-member-cc', 'udp-member-dd'];
const BROWSER = 'browser-member-ee';

/** Raw bytes as they arrived at a member's socket, before decryption. */
interface Captured {
  readonly at: string;
  readonly from: string;
  readonly kind: 'packet' | 'stream';
  readonly bytes: Uint8Array;
}

/** `inner`, recording every packet and stream that reaches it into `log`. */
function recording(at: string, inner: Transport, log: Captured[]): Transport {
  return {
    get address() {
      return inner.address;
    },
    maxPacketBytes: inner.maxPacketBytes,
    supportsStreams: inner.supportsStreams,
    listen: (handlers) =>
      inner.listen({
        packet: (from, bytes) => {
          log.push({ at, from, kind: 'packet', bytes: bytes.slice() });
          handlers.packet(from, bytes);
        },
        stream: (from, bytes, reply) => {
          log.push({ at, from, kind: 'stream', bytes: bytes.slice() });
          handlers.stream(from, bytes, reply);
        },
      }),
    sendPacket: (to, bytes) => inner.sendPacket(to, bytes),
    request: (to, bytes, options, done) => inner.request(to, bytes, options, done),
    close: () => inner.close(),
  };
}

const contains = (bytes: Uint8Array, text: string) => Buffer.from(bytes).includes(Buffer.from(text));

/** An encrypted UDP member with its own keyring holding `keys`, answering key ops, its traffic recorded. */
async function encryptedMember(name: string, keys: string[], log: Captured[]): Promise<{ member: Member; transport: SecureTransport; keyring: Keyring }> {
  const keyring = Keyring.from(keys);
  const udp = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  const transport = secureTransport(recording(name, udp, log), { keyring, services: { [KEY_OPS_SERVICE]: keyOpsService(keyring) } });
  return { member: new Member({ name, transport, preset: 'local', config }), transport, keyring };
}

describe('an encrypted cluster with a browser member through a gateway holding the keyring', () => {
  const captured: Captured[] = [];
  const members: Member[] = [];
  let gatewayKeyring: Keyring;
  let udp: Awaited<ReturnType<typeof encryptedMember>>[];
  let gateway: WsGateway;
  let client: WsTransport;
  let browser: Member;

  beforeAll(async () => {
    const own = await encryptedMember(GATEWAY, [K1], captured);
    members.push(own.member);
    // The gateway process's member and its relays share one keyring, as they share the process.
    gatewayKeyring = own.keyring;
    gateway = await createWsGateway({
      seed: own.member.address,
      seedName: GATEWAY,
      encryption: { keyring: gatewayKeyring }, // relays get the key-ops service on it by default
    });
    udp = [];
    for (const name of UDP_NAMES) {
      const m = await encryptedMember(name, [K1], captured);
      udp.push(m);
      members.push(m.member);
      await m.member.join([own.member.address]);
    }
    client = await connectWsTransport({ url: gateway.url, name: BROWSER });
    browser = new Member({ name: BROWSER, transport: client, preset: 'local', config });
    members.push(browser);
    await browser.join([client.seed!]);
  });

  afterAll(async () => {
    await Promise.all(members.map((m) => m.close()));
    await gateway.close();
  });

  const names = [GATEWAY, ...UDP_NAMES, BROWSER];
  const views = () => members.map((o) => `${o.name}: ${names.map((n) => `${n} ${o.member(n)?.state ?? 'unknown'}`).join(', ')}`).join('; ');
  const allAlive = () => members.every((o) => names.every((n) => o.member(n)?.state === 'alive'));

  it('converges: the UDP members see the browser member alive, and it sees them', async () => {
    expect(await waitFor(allAlive, 20_000), views()).toBe(true);
    const relay = gateway.sessions().find((s) => s.name === BROWSER)!.address;
    expect(udp[0]!.member.member(BROWSER)?.address).toBe(relay);
    // The client fills packets to what the encrypted relay can still carry: 1400 less memberlist's 29-byte overhead (version 1).
    expect(client.maxPacketBytes).toBe(1400 - 29);
    // The join itself is a push-pull stream; the probes that follow are packets, both ways through the relay's encryption.
    const counters = () => gateway.encryptionCounters()!;
    expect(await waitFor(() => counters().packetsEncrypted > 0 && counters().packetsDecrypted > 0, 10_000), JSON.stringify(counters())).toBe(true);
    expect(counters().streamsEncrypted + counters().streamsDecrypted).toBeGreaterThan(0);
    expect(counters().decryptFailures).toBe(0);
    expect(gateway.counters.spoofDropped).toBe(0);
  });

  it('what the relay sends into the cluster carries no member name in clear', async () => {
    const relay = gateway.sessions().find((s) => s.name === BROWSER)!.address;
    const relayPackets = () => captured.filter((c) => c.from === relay && c.kind === 'packet');
    // Probes, acks and gossip from the browser member: dozens a second with these timers.
    expect(await waitFor(() => relayPackets().length >= 20, 10_000)).toBe(true);
    const fromRelay = relayPackets();
    for (const name of names) {
      expect(fromRelay.filter((c) => contains(c.bytes, name)).length, `relay datagrams naming ${name}`).toBe(0);
    }
    // Nor any stream or packet anyone sent (the relay's streams come from ephemeral ports).
    expect(captured.filter((c) => names.some((n) => contains(c.bytes, n))).length).toBe(0);
  });

  it('the gateway filters what a browser sends in plaintext, before its relay encrypts it', async () => {
    const before = { dropped: gateway.counters.spoofDropped, claims: gateway.counters.spoof['alive-claim'] };
    const mallory = await rawJoin(gateway.url, { name: 'mallory-member-ff' });
    const relay = mallory.welcome.address;
    const target = udp[0]!.member;
    const send = (bytes: Uint8Array) => mallory.ws.send(encodePacket(target.address, bytes));
    // Another member's name at mallory's relay address: dropped by the gateway, never encrypted and sent.
    send(encodeSwim([{ type: 'alive', incarnation: 99, node: UDP_NAMES[1]!, address: relay, meta: new Uint8Array(0) }]));
    // Its own ping is relayed, encrypted, and the member's ack comes back through the relay.
    send(encodeSwim([{ type: 'ping', seq: 1, target: target.name, sourceName: 'mallory-member-ff', sourceAddress: relay }]));
    expect(await waitFor(() => mallory.frames.length > 0, 5_000)).toBe(true);
    const fromMallory = captured.filter((c) => c.from === relay);
    expect(fromMallory).toHaveLength(1);
    expect(contains(fromMallory[0]!.bytes, 'mallory-member-ff')).toBe(false);
    expect(gateway.counters.spoofDropped).toBe(before.dropped + 1);
    expect(gateway.counters.spoof['alive-claim']).toBe(before.claims + 1);
    expect(target.member(UDP_NAMES[1]!)?.address).toBe(udp[1]!.member.address);
    mallory.ws.close(1000);
  });

  it('a cluster-wide key list counts the browser member: its relay answers with the gateway keyring', async () => {
    const targets = members.map((m) => ({ name: m.name, address: m.address }));
    const report = await runKeyOp(udp[0]!.transport, targets, { op: 'list' }, { timeoutMs: 5_000 });
    expect(report.failures).toEqual([]);
    expect(report.answered).toBe(names.length);
    expect(report.keys).toEqual({ [K1]: names.length });
  });

  it('rotating the key while running (install K2, use K2, remove K1) keeps the browser member alive everywhere', async () => {
    const targets = members.map((m) => ({ name: m.name, address: m.address }));
    const suspected: string[] = [];
    for (const m of members) m.on('change', (change) => {
      if (change.member.name === BROWSER && change.event !== 'alive') suspected.push(`${m.name} saw ${change.event}`);
    });
    for (const op of [{ op: 'install', key: K2 }, { op: 'use', key: K2 }, { op: 'remove', key: K1 }] as const) {
      const report = await runKeyOp(udp[0]!.transport, targets, op, { timeoutMs: 5_000 });
      expect(report.failures, `${op.op}`).toEqual([]);
      expect(report.succeeded, `${op.op}`).toBe(names.length);
    }
    expect(gatewayKeyring.list()).toEqual([K2]);
    const before = gateway.encryptionCounters()!.packetsDecrypted;
    // Traffic under K2 still reaches the browser member (decrypted by its relay) and it stays alive.
    expect(await waitFor(() => gateway.encryptionCounters()!.packetsDecrypted > before + 20, 10_000)).toBe(true);
    expect(allAlive(), views()).toBe(true);
    expect(suspected).toEqual([]);
  });
});

describe('a gateway without the keyring in an encrypted cluster', () => {
  const captured: Captured[] = [];
  const members: Member[] = [];
  let gateway: WsGateway;

  afterAll(async () => {
    await Promise.all(members.map((m) => m.close()));
    await gateway.close();
  });

  it('relays plaintext that the members refuse: the browser member never joins, and its name is in clear on the wire', async () => {
    const own = await encryptedMember(GATEWAY, [K1], captured);
    members.push(own.member);
    gateway = await createWsGateway({ seed: own.member.address, seedName: GATEWAY, joinTimeoutMs: 60_000 });
    expect(gateway.encryptionCounters()).toBeUndefined();
    const client = await connectWsTransport({ url: gateway.url, name: BROWSER });
    const browser = new Member({ name: BROWSER, transport: client, preset: 'local', config });
    members.push(browser);
    const joined = browser.join([client.seed!]).then(
      () => 'joined',
      (error: Error) => error.message,
    );
    // The join's push-pull reaches the gateway member in plaintext: refused, never merged.
    const refused = () => own.transport.counters.plaintextRefused + own.transport.counters.decryptFailures > 0;
    expect(await waitFor(refused, 10_000)).toBe(true);
    expect(captured.some((c) => contains(c.bytes, BROWSER))).toBe(true);
    expect(own.member.member(BROWSER)).toBeUndefined();
    await joined;
    expect(own.member.member(BROWSER)).toBeUndefined();
  });
});

describe('the encryption option is checked at construction', () => {
  it('lists every problem with it, and the other options', async () => {
    const message = await createWsGateway({
      encryption: { keyring: 'K1' as unknown as Keyring, label: '', maxInFlight: 0, onError: () => {} } as never,
      maxSessions: 0,
    }).catch((error: Error) => error.message);
    expect(message).toMatch(/\(5 problems\)/);
    expect(message).toContain('encryption: keyring must be a Keyring');
    expect(message).toContain('encryption: maxInFlight must be');
    expect(message).toContain("encryption.onError is not taken: relay errors go to the gateway's onError");
    expect(message).toContain('maxSessions must be a positive integer');
  });

  it('refuses a relay MTU that the encryption envelope would fill', async () => {
    const keyring = Keyring.from([K1]);
    await expect(createWsGateway({ maxPacketBytes: 29, encryption: { keyring } })).rejects.toThrow(
      'maxPacketBytes (29) leaves no room for a packet after the encryption envelope (29 bytes)',
    );
    const gateway = await createWsGateway({ maxPacketBytes: 30, encryption: { keyring } });
    await gateway.close();
  });

  it('hands clients the packet size the envelope leaves: 29 bytes for the keyring, 2 + the label for a label', async () => {
    const gateway = await createWsGateway({ joinTimeoutMs: 60_000, encryption: { keyring: Keyring.from([K1]), label: 'prod-eu' } });
    try {
      const client = await rawJoin(gateway.url, { name: 'sizer' });
      expect(client.welcome.maxPacketBytes).toBe(1400 - 29 - (2 + 'prod-eu'.length));
      client.ws.close(1000);
    } finally {
      await gateway.close();
    }
  });
});
