import { encodePacket as encodeSwim } from '@swim/core';
import { generateKey, Keyring } from '@swim/encryption';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeFrame, encodePacket, OP_PACKET } from '../src/protocol/framing.js';
import { pool, waitFor } from './helpers.js';
import { rawJoin, type RawClient } from './raw.js';

type Tab = RawClient & { welcome: { address: string } };

/** A packet as a member named `from` would gossip it: a user message, so that the spoof check passes. */
const gossip = (from: string, mark: number): Uint8Array => encodeSwim([{ type: 'user', from, payload: new Uint8Array([mark, 1, 2, 3]) }]).slice();

/** The packets `tab` received, as (sender address, bytes). */
function packets(tab: Tab): Array<{ from: string; bytes: Uint8Array }> {
  return tab.frames.flatMap((data) => {
    const frame = decodeFrame(data);
    return typeof frame !== 'string' && frame.op === OP_PACKET ? [{ from: frame.address, bytes: new Uint8Array(frame.bytes) }] : [];
  });
}

describe('gateway: a packet from one relay to another of the same gateway is handed over in-process', () => {
  const made = pool();
  const tabs: Tab[] = [];
  afterEach(async () => {
    for (const tab of tabs.splice(0)) tab.ws.terminate();
    await made.closeAll();
  });
  const join = async (url: string, name: string): Promise<Tab> => {
    const tab = await rawJoin(url, { name });
    tabs.push(tab);
    return tab;
  };

  it('two tabs on one gateway exchange packets without the UDP socket, in order, from the sender relay address', async () => {
    // Relays advertise an address nothing answers at (TEST-NET-1): a packet sent over UDP would be lost.
    const gateway = await made.gateway({ relayAdvertiseHost: '192.0.2.1' });
    const a = await join(gateway.url, 'a');
    const b = await join(gateway.url, 'b');
    expect(a.welcome.address.startsWith('192.0.2.1:')).toBe(true);
    const sent = Array.from({ length: 20 }, (_, i) => gossip('a', i));
    for (const bytes of sent) a.ws.send(encodePacket(b.welcome.address, bytes));
    b.ws.send(encodePacket(a.welcome.address, gossip('b', 99)));

    expect(await waitFor(() => packets(b).length === 20 && packets(a).length === 1)).toBe(true);
    expect(packets(b)).toEqual(sent.map((bytes) => ({ from: a.welcome.address, bytes })));
    expect(packets(a)).toEqual([{ from: b.welcome.address, bytes: gossip('b', 99) }]);
    expect(gateway.counters).toMatchObject({ packetsIn: 21, packetsShortCircuited: 21, packetsOut: 21, packetsDropped: 0 });
    // Something reached each relay from another address: both members count as joined, as over UDP.
    expect(gateway.sessions().every((s) => s.joined)).toBe(true);
  });

  it('still drops what the spoof check refuses: a tab speaking for another member', async () => {
    const gateway = await made.gateway();
    const a = await join(gateway.url, 'a');
    const b = await join(gateway.url, 'b');
    a.ws.send(encodePacket(b.welcome.address, gossip('b', 1))); // "from b", sent by a
    a.ws.send(encodePacket(b.welcome.address, gossip('a', 2)));
    expect(await waitFor(() => packets(b).length === 1 && gateway.counters.spoofDropped === 1)).toBe(true);
    expect(packets(b)).toEqual([{ from: a.welcome.address, bytes: gossip('a', 2) }]);
    expect(gateway.counters.packetsShortCircuited).toBe(1);
  });

  it('a tab on another gateway still gets them over UDP', async () => {
    const one = await made.gateway();
    const two = await made.gateway();
    const a = await join(one.url, 'a');
    const b = await join(two.url, 'b');
    a.ws.send(encodePacket(b.welcome.address, gossip('a', 7)));
    expect(await waitFor(() => packets(b).length === 1)).toBe(true);
    expect(packets(b)).toEqual([{ from: a.welcome.address, bytes: gossip('a', 7) }]);
    expect(one.counters).toMatchObject({ packetsIn: 1, packetsShortCircuited: 0 });
    expect(two.counters).toMatchObject({ packetsOut: 1, packetsShortCircuited: 0 });
  });

  it('with encrypted relays: no crypto for a packet between two relays of one gateway, encrypted as before to another gateway', async () => {
    const keyring = Keyring.from([generateKey()]);
    const one = await made.gateway({ encryption: { keyring } });
    const two = await made.gateway({ encryption: { keyring } });
    const a = await join(one.url, 'a');
    const b = await join(one.url, 'b');
    const c = await join(two.url, 'c');
    a.ws.send(encodePacket(b.welcome.address, gossip('a', 1)));
    a.ws.send(encodePacket(c.welcome.address, gossip('a', 2)));
    expect(await waitFor(() => packets(b).length === 1 && packets(c).length === 1)).toBe(true);
    expect(packets(b)).toEqual([{ from: a.welcome.address, bytes: gossip('a', 1) }]);
    expect(packets(c)).toEqual([{ from: a.welcome.address, bytes: gossip('a', 2) }]);
    expect(one.counters.packetsShortCircuited).toBe(1);
    // Only the packet to the other gateway was encrypted (by a's relay) and decrypted (by c's).
    expect(one.encryptionCounters()).toMatchObject({ packetsEncrypted: 1, packetsDecrypted: 0, decryptFailures: 0 });
    expect(two.encryptionCounters()).toMatchObject({ packetsEncrypted: 0, packetsDecrypted: 1, decryptFailures: 0 });
  });

  it('a packet to a relay that closed goes out over UDP like any other address', async () => {
    const gateway = await made.gateway();
    const a = await join(gateway.url, 'a');
    const b = await join(gateway.url, 'b');
    const gone = b.welcome.address;
    b.ws.close(1000); // a goodbye: the relay is released at once
    expect(await waitFor(() => gateway.sessions().length === 1)).toBe(true);
    a.ws.send(encodePacket(gone, gossip('a', 1)));
    expect(await waitFor(() => gateway.counters.packetsIn === 1)).toBe(true);
    expect(gateway.counters.packetsShortCircuited).toBe(0);
  });
});
