// Runtime members over wrapped transports, in memory and over real UDP + TCP on loopback: what an
// encrypted, labelled cluster must do (issue #11, "Done when").
import { JoinError, Member, type Transport } from '@swim/runtime';
import { constantLatency, MemoryNetwork, realScheduler } from '@swim/transport-memory';
import { createUdpTransport } from '@swim/transport-udp';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey, Keyring, secureTransport, webCryptoEngine, type AesGcmEngine, type SecureTransport, type SecureTransportCounters, type SecureTransportOptions } from '../src/index.js';
import { nodeCryptoEngine } from '../src/node/index.js';
import { containsBytes, utf8, waitFor } from './helpers.js';

/**
 * Loopback timers with room for a loaded 2-core machine: a probe waits 400 ms for its ack, and a
 * suspect needs several missed rounds to die. Push-pull every 3 s repairs what gossip missed.
 */
const config = { probeIntervalMs: 500, probeTimeoutMs: 400, gossipIntervalMs: 50, suspicionMult: 4, pushPullIntervalMs: 3_000 };

interface Network {
  inner(): Promise<Transport>;
}

const memory = (): Network => {
  const network = new MemoryNetwork({ scheduler: realScheduler, seed: 11, latency: constantLatency(1) });
  let n = 0;
  return { inner: async () => network.transport(`m${++n}`) };
};
const udp = (): Network => ({ inner: () => createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }) });

/** Each network with each engine: WebCrypto's asynchronous path and node:crypto's synchronous one. */
const networks: Array<[string, () => Network, AesGcmEngine]> = [
  ['memory, webcrypto', memory, webCryptoEngine],
  ['memory, node:crypto', memory, nodeCryptoEngine],
  ['udp, webcrypto', udp, webCryptoEngine],
  ['udp, node:crypto', udp, nodeCryptoEngine],
];

/** Every packet and stream request the inner transport sends, recorded (a capture on the wire). */
interface Capture {
  readonly packets: Uint8Array[];
  readonly streams: Uint8Array[];
}

function capture(inner: Transport): Capture {
  const captured: Capture = { packets: [], streams: [] };
  const sendPacket = inner.sendPacket.bind(inner);
  const request = inner.request.bind(inner);
  inner.sendPacket = (to, bytes) => {
    captured.packets.push(bytes.slice());
    sendPacket(to, bytes);
  };
  inner.request = (to, bytes, options, done) => {
    captured.streams.push(bytes.slice());
    request(to, bytes, options, done);
  };
  return captured;
}

describe.each(networks)('members over secure transports (%s)', (_kind, makeNetwork, engine) => {
  const ring = (keys: readonly string[]) => Keyring.from(keys, { engine });
  const members: Member[] = [];
  let network: Network;

  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.close()));
  });

  async function start(name: string, options: SecureTransportOptions | 'plain'): Promise<{ member: Member; transport: SecureTransport | undefined; capture: Capture }> {
    network ??= makeNetwork();
    const inner = await network.inner();
    const captured = capture(inner);
    const transport = options === 'plain' ? undefined : secureTransport(inner, options);
    const member = new Member({ name, transport: transport ?? inner, config });
    members.push(member);
    return { member, transport, capture: captured };
  }

  /** The names `member` holds alive. */
  const aliveNames = (member: Member): string[] =>
    member
      .members()
      .filter((m) => m.state === 'alive')
      .map((m) => m.name)
      .sort();

  const converged = (group: readonly Member[]): boolean => {
    const names = group.map((m) => m.name).sort();
    return group.every((m) => JSON.stringify(aliveNames(m)) === JSON.stringify(names));
  };

  /** Wait until every transport's `counter` grew by `by` from now: traffic went on, however slow the machine. */
  async function progress(transports: readonly SecureTransport[], counter: keyof SecureTransportCounters, by = 10): Promise<void> {
    const from = transports.map((t) => t.counters[counter]);
    expect(await waitFor(() => transports.every((t, i) => t.counters[counter] >= from[i]! + by), 20_000), `${counter} grew by ${by} everywhere`).toBe(true);
  }

  /** Every suspect and dead event any of `group` dispatches. */
  function watchFailures(group: readonly Member[]): string[] {
    const seen: string[] = [];
    for (const m of group) {
      m.on('suspect', (change) => seen.push(`${m.name} suspects ${change.member.name}`));
      m.on('dead', (change) => seen.push(`${m.name} declares ${change.member.name} dead`));
    }
    return seen;
  }

  async function cluster(names: readonly string[], options: () => SecureTransportOptions) {
    const started = [];
    for (const name of names) started.push(await start(name, options()));
    const group = started.map((s) => s.member);
    for (const m of group.slice(1)) await m.join([group[0]!.address]);
    expect(await waitFor(() => converged(group)), `${names.join(', ')} converge`).toBe(true);
    return { started, group, transports: started.map((s) => s.transport!) };
  }

  it('three members with the same key converge, and no datagram or stream carries a member name in clear text', { timeout: 60_000 }, async () => {
    const key = generateKey();
    const names = ['alpha-encrypted', 'bravo-encrypted', 'charlie-encrypted'];
    const { started, transports } = await cluster(names, () => ({ keyring: ring([key]) }));
    await progress(transports, 'packetsDecrypted');
    const packets = started.flatMap((s) => s.capture.packets);
    const streams = started.flatMap((s) => s.capture.streams);
    expect(packets.length).toBeGreaterThan(30);
    expect(streams.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(packets.filter((p) => containsBytes(p, utf8(name))), `packets naming ${name}`).toHaveLength(0);
      expect(streams.filter((s) => containsBytes(s, utf8(name))), `streams naming ${name}`).toHaveLength(0);
    }
    for (const t of transports) expect(t.counters.decryptFailures).toBe(0);
  });

  it('the capture would see the names without encryption (the check above can fail)', { timeout: 60_000 }, async () => {
    const names = ['delta-plain', 'echo-plain'];
    const { started, transports } = await cluster(names, () => ({ label: 'prod' }));
    expect(await waitFor(() => started.every((s) => s.capture.packets.length > 20))).toBe(true);
    expect(transports.every((t) => t.counters.packetsEncrypted === 0)).toBe(true);
    const packets = started.flatMap((s) => s.capture.packets);
    expect(packets.filter((p) => containsBytes(p, utf8('delta-plain'))).length).toBeGreaterThan(0);
  });

  it('a member with the wrong key and one with no key are never seen; the others count them', { timeout: 60_000 }, async () => {
    const key = generateKey();
    const { group, transports } = await cluster(['k1', 'k2', 'k3'], () => ({ keyring: ring([key]) }));
    const seed = transports[0]!;
    const wrong = await start('wrong-key', { keyring: ring([generateKey()]) });
    const plain = await start('no-key', 'plain');
    await expect(wrong.member.join([group[0]!.address])).rejects.toBeInstanceOf(JoinError);
    await expect(plain.member.join([group[0]!.address])).rejects.toBeInstanceOf(JoinError);
    // The wrong key's join stream failed to decrypt; the plaintext one was refused unread.
    expect(seed.counters.decryptFailures).toBeGreaterThan(0);
    expect(seed.counters.plaintextRefused).toBeGreaterThan(0);
    await progress(transports, 'packetsDecrypted');
    for (const m of group) expect(aliveNames(m)).toEqual(['k1', 'k2', 'k3']);
    for (const m of group) expect(m.allMembers().map((v) => v.name)).not.toContain('wrong-key');
    for (const m of group) expect(m.allMembers().map((v) => v.name)).not.toContain('no-key');
    expect(aliveNames(wrong.member)).toEqual(['wrong-key']);
    expect(aliveNames(plain.member)).toEqual(['no-key']);
  });

  it('two labels keep two clusters apart, each counting the other', { timeout: 60_000 }, async () => {
    const key = generateKey();
    const blue = await cluster(['blue-1', 'blue-2'], () => ({ keyring: ring([key]), label: 'blue' }));
    const green = await cluster(['green-1', 'green-2'], () => ({ keyring: ring([key]), label: 'green' }));
    await expect(green.group[0]!.join([blue.group[0]!.address])).rejects.toBeInstanceOf(JoinError);
    await expect(blue.group[1]!.join([green.group[1]!.address])).rejects.toBeInstanceOf(JoinError);
    expect(blue.transports[0]!.counters.labelMismatches).toBeGreaterThan(0);
    expect(green.transports[1]!.counters.labelMismatches).toBeGreaterThan(0);
    await progress([...blue.transports, ...green.transports], 'packetsDecrypted');
    for (const m of blue.group) expect(aliveNames(m)).toEqual(['blue-1', 'blue-2']);
    for (const m of green.group) expect(aliveNames(m)).toEqual(['green-1', 'green-2']);
  });

  it('turning encryption on in a running cluster with setVerify loses nobody', { timeout: 90_000 }, async () => {
    const key = generateKey();
    const { group, transports } = await cluster(['on-1', 'on-2', 'on-3'], () => ({
      keyring: ring([key]),
      verifyIncoming: false,
      verifyOutgoing: false,
    }));
    const failures = watchFailures(group);
    await progress(transports, 'plaintextAccepted');
    for (const t of transports) expect(t.counters.packetsEncrypted, 'plaintext before the switch').toBe(0);

    // Outgoing on, one member at a time: the others still accept plaintext and decrypt what is encrypted.
    for (const t of transports) {
      t.setVerify({ outgoing: true });
      await progress([t], 'packetsEncrypted', 3);
    }
    await progress(transports, 'packetsDecrypted');
    const plaintextAfterOutgoing = transports.map((t) => t.counters.plaintextAccepted);
    // Incoming on, one member at a time: everyone encrypts by now.
    for (const t of transports) {
      t.setVerify({ incoming: true });
      await progress([t], 'packetsDecrypted', 3);
    }
    await progress(transports, 'packetsDecrypted');

    expect(failures).toEqual([]);
    for (const m of group) expect(aliveNames(m)).toEqual(['on-1', 'on-2', 'on-3']);
    for (const t of transports) {
      expect(t.counters.decryptFailures).toBe(0);
      expect(t.verifyIncoming && t.verifyOutgoing).toBe(true);
    }
    // Nothing arrived in plaintext once everyone encrypted.
    expect(transports.map((t) => t.counters.plaintextAccepted)).toEqual(plaintextAfterOutgoing);
    // And a member without the key is now kept out.
    const outsider = await start('on-plain', 'plain');
    await expect(outsider.member.join([group[0]!.address])).rejects.toBeInstanceOf(JoinError);
  });

  it('rotating the key on every keyring while running (install, use, remove) loses nobody; then K2 joins and K1 does not', { timeout: 90_000 }, async () => {
    const k1 = generateKey();
    const k2 = generateKey();
    const { group, transports } = await cluster(['rot-1', 'rot-2', 'rot-3'], () => ({ keyring: ring([k1]) }));
    const failures = watchFailures(group);
    for (const t of transports) t.keyring!.install(k2);
    await progress(transports, 'packetsDecrypted');
    for (const t of transports) {
      t.keyring!.use(k2);
      await progress([t], 'packetsEncrypted', 3);
    }
    await progress(transports, 'packetsDecrypted');
    for (const t of transports) t.keyring!.remove(k1);
    await progress(transports, 'packetsDecrypted');

    expect(failures).toEqual([]);
    for (const t of transports) {
      expect(t.keyring!.list()).toEqual([k2]);
      expect(t.counters.decryptFailures).toBe(0);
    }
    const old = await start('rot-old', { keyring: ring([k1]) });
    await expect(old.member.join([group[0]!.address])).rejects.toBeInstanceOf(JoinError);
    expect(transports[0]!.counters.decryptFailures).toBeGreaterThan(0);
    const fresh = await start('rot-new', { keyring: ring([k2]) });
    await fresh.member.join([group[1]!.address]);
    expect(await waitFor(() => converged([...group, fresh.member]))).toBe(true);
  });
});
