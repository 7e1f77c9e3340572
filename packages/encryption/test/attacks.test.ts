// Hostile input at the wrapper: none of it throws, each piece is counted, pending work stays bounded,
// and nothing undecrypted reaches the inner handlers (the core).
import { describe, expect, it } from 'vitest';
import {
  encryptBlob,
  encryptStream,
  generateKey,
  KEY_OPS_SERVICE,
  Keyring,
  labelHeader,
  secureTransport,
  serviceRequestBytes,
  type SecureTransport,
  type SecureTransportOptions,
  type AesGcmKey,
} from '../src/index.js';
import { concatBytes } from '../src/bytes.js';
import { FakeTransport, recordingHandlers, utf8, waitFor } from './helpers.js';

const KEY = generateKey();

function setup(options: SecureTransportOptions = { keyring: Keyring.from([KEY]) }) {
  const inner = new FakeTransport();
  const errors: unknown[] = [];
  const transport = secureTransport(inner, { onError: (error) => errors.push(error), ...options });
  const core = recordingHandlers((bytes) => concatBytes(utf8('re: '), bytes));
  transport.listen(core.handlers);
  return { inner, transport, core, errors };
}

async function primary(): Promise<AesGcmKey> {
  return (await Keyring.from([KEY]).cryptoKeys())[0]!;
}

/** Wait until the wrapper has nothing pending, then let its last callbacks run. */
async function idle(transport: SecureTransport): Promise<void> {
  expect(await waitFor(() => transport.inFlight === 0)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 0));
}

describe('hostile packets', () => {
  it('garbage, truncated blobs, version 2, version 0, blobs under the minimum: dropped and counted, never delivered', async () => {
    const { inner, transport, core, errors } = setup();
    const plaintext = utf8('a genuine packet from a member with the key');
    const blob = await encryptBlob(await primary(), plaintext);
    const hostile: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.from({ length: 200 }, (_, i) => (i * 131 + 7) & 0xff),
      new Uint8Array(1400).fill(1),
      ...Array.from({ length: blob.length - 1 }, (_, n) => blob.subarray(0, n + 1)), // every truncation
      concatBytes(Uint8Array.of(2), blob.subarray(1)), // version 2
      concatBytes(Uint8Array.of(0xff), blob.subarray(1)),
      await encryptBlob(await primary(), plaintext, undefined, { version: 0 }), // version 0: the wrapper accepts 1 only
      new Uint8Array(28).fill(1), // one byte under the smallest version-1 blob
      concatBytes(blob, Uint8Array.of(0)), // a byte appended
    ];
    for (const bytes of hostile) expect(() => inner.deliverPacket('attacker:1', bytes)).not.toThrow();
    inner.deliverPacket('member:1', blob);
    await idle(transport);
    expect(transport.counters.decryptFailures).toBe(hostile.length);
    expect(transport.counters.packetsDecrypted).toBe(1);
    expect(core.packets).toEqual([{ from: 'member:1', bytes: plaintext }]);
    expect(errors).toEqual([]);
  });

  it('bad label headers (244 with length 0, truncated, not UTF-8), another label, none: dropped and counted before any decryption', async () => {
    const { inner, transport, core } = setup({ keyring: Keyring.from([KEY]), label: 'prod' });
    const blob = await encryptBlob(await primary(), utf8('x'), utf8('prod'));
    const hostile = [
      Uint8Array.of(244),
      Uint8Array.of(244, 0),
      Uint8Array.of(244, 0, 1, 2, 3),
      Uint8Array.of(244, 10, 0x70, 0x72),
      Uint8Array.of(244, 2, 0xff, 0xfe, 1, 2, 3),
      concatBytes(labelHeader('dev'), blob),
      concatBytes(labelHeader('prodx'), blob),
      blob, // no label
    ];
    for (const bytes of hostile) expect(() => inner.deliverPacket('attacker:1', bytes)).not.toThrow();
    expect(transport.inFlight, 'label checks are synchronous: no crypto started').toBe(0);
    inner.deliverPacket('member:1', concatBytes(labelHeader('prod'), blob));
    await idle(transport);
    expect(transport.counters.labelMismatches).toBe(hostile.length);
    expect(transport.counters.decryptFailures).toBe(0);
    expect(core.packets.map((p) => p.bytes)).toEqual([utf8('x')]);
  });

  it('a label where none is configured is a mismatch too (memberlist: Label != packetLabel)', async () => {
    const { inner, transport, core } = setup({ keyring: Keyring.from([KEY]) });
    inner.deliverPacket('attacker:1', concatBytes(labelHeader('prod'), new Uint8Array(40)));
    await idle(transport);
    expect(transport.counters.labelMismatches).toBe(1);
    expect(core.packets).toEqual([]);
  });

  it('a flood over maxInFlight: at most maxInFlight pending, the rest dropped and counted, all released', async () => {
    const { inner, transport, core } = setup({ keyring: Keyring.from([KEY]), maxInFlight: 8 });
    const junk = new Uint8Array(1400).fill(1);
    let highest = 0;
    for (let i = 0; i < 20_000; i++) {
      inner.deliverPacket('attacker:1', junk);
      highest = Math.max(highest, transport.inFlight);
    }
    expect(highest).toBe(8);
    expect(transport.counters.inFlightDropped).toBe(20_000 - 8);
    await idle(transport);
    expect(transport.inFlight).toBe(0);
    expect(transport.counters.decryptFailures).toBe(8);
    expect(core.packets).toEqual([]);
    // Once the flood has passed, genuine traffic gets through again.
    inner.deliverPacket('member:1', await encryptBlob(await primary(), utf8('after the flood')));
    await idle(transport);
    expect(core.packets.map((p) => p.bytes)).toEqual([utf8('after the flood')]);
  });

  it('with verifyIncoming off, what no key opens is delivered as plaintext and counted as such', async () => {
    const { inner, transport, core } = setup({ keyring: Keyring.from([KEY]), verifyIncoming: false });
    inner.deliverPacket('member:1', utf8('plain gossip'));
    await idle(transport);
    expect(transport.counters.plaintextAccepted).toBe(1);
    expect(transport.counters.decryptFailures).toBe(0);
    expect(core.packets.map((p) => p.bytes)).toEqual([utf8('plain gossip')]);
  });
});

describe('hostile streams', () => {
  async function streamOf(plaintext: Uint8Array, label?: string): Promise<Uint8Array> {
    return encryptStream(await primary(), plaintext, label);
  }

  it('a stream claiming 4 GiB, or more or less than it carries, or truncated: refused, counted, never delivered', async () => {
    const { inner, transport, core } = setup();
    const genuine = await streamOf(utf8('push-pull'));
    const hostile = [
      Uint8Array.of(10),
      Uint8Array.of(10, 0, 0),
      concatBytes(Uint8Array.of(10, 0xff, 0xff, 0xff, 0xff), new Uint8Array(64)),
      concatBytes(Uint8Array.of(10, 0x01, 0x40, 0x00, 0x01), new Uint8Array(64)), // 20 MiB + 1 claimed
      genuine.subarray(0, genuine.length - 1),
      concatBytes(genuine, Uint8Array.of(0)),
      concatBytes(Uint8Array.of(10, 0, 0, 0, 5), Uint8Array.of(1, 2, 3, 4, 5)), // under the smallest blob
      concatBytes(genuine.subarray(0, 5), Uint8Array.of(2), genuine.subarray(6)), // version 2
    ];
    const replies = hostile.map((bytes) => inner.deliverStream('attacker:1', bytes));
    const answered = await Promise.all(replies.map((r) => r.replied));
    expect(answered.every((r) => r === undefined), 'closed without a reply').toBe(true);
    const ok = inner.deliverStream('member:1', genuine);
    const reply = await ok.replied;
    await idle(transport);
    expect(transport.counters.decryptFailures).toBe(hostile.length);
    expect(core.streams.map((s) => s.bytes)).toEqual([utf8('push-pull')]);
    // The reply is encrypted (starts with memberlist's encryptMsg), not the plaintext "re: push-pull".
    expect(reply?.[0]).toBe(10);
    expect(transport.counters.streamsEncrypted).toBe(1);
  });

  it('a plaintext stream is refused with verifyIncoming on (memberlist: encryption is configured but remote state is not encrypted)', async () => {
    const { inner, transport, core } = setup();
    expect(await inner.deliverStream('attacker:1', utf8('\x01plaintext push-pull')).replied).toBeUndefined();
    expect(transport.counters.plaintextRefused).toBe(1);
    expect(core.streams).toEqual([]);
  });

  it('an encrypted stream to a member without a keyring is refused (remote state is encrypted and encryption is not configured)', async () => {
    const { inner, transport, core } = setup({ label: 'prod' });
    const bytes = concatBytes(labelHeader('prod'), await streamOf(utf8('x'), 'prod'));
    expect(await inner.deliverStream('member:1', bytes).replied).toBeUndefined();
    expect(transport.counters.decryptFailures).toBe(1);
    expect(core.streams).toEqual([]);
  });

  it('a flood of streams over maxInFlight: each closed without reply and counted', async () => {
    const { inner, transport, core } = setup({ keyring: Keyring.from([KEY]), maxInFlight: 4 });
    const junk = concatBytes(Uint8Array.of(10, 0, 0, 0, 40), new Uint8Array(40));
    const replies = Array.from({ length: 500 }, () => inner.deliverStream('attacker:1', junk));
    expect(transport.inFlight).toBe(4);
    expect(transport.counters.inFlightDropped).toBe(496);
    expect((await Promise.all(replies.map((r) => r.replied))).every((r) => r === undefined)).toBe(true);
    await idle(transport);
    expect(transport.counters.decryptFailures).toBe(4);
    expect(core.streams).toEqual([]);
  });

  it('bad label headers on streams are mismatches, closed without a reply', async () => {
    const { inner, transport, core } = setup({ keyring: Keyring.from([KEY]), label: 'prod' });
    const genuine = await streamOf(utf8('x'), 'prod');
    for (const bytes of [Uint8Array.of(244, 0), Uint8Array.of(244, 200, 1), genuine, concatBytes(labelHeader('dev'), genuine)]) {
      expect(await inner.deliverStream('attacker:1', bytes).replied).toBeUndefined();
    }
    expect(transport.counters.labelMismatches).toBe(4);
    // A stream encrypted under another label's AAD does not open under ours.
    const otherLabel = concatBytes(labelHeader('prod'), await streamOf(utf8('x'), 'dev'));
    expect(await inner.deliverStream('attacker:1', otherLabel).replied).toBeUndefined();
    expect(transport.counters.decryptFailures).toBe(1);
    expect(core.streams).toEqual([]);
  });
});

describe('service streams', () => {
  function withService(options: SecureTransportOptions) {
    const calls: Array<{ from: string; body: Uint8Array; encrypted: boolean }> = [];
    const handler = (request: { from: string; body: Uint8Array; encrypted: boolean }) => {
      calls.push(request);
      return utf8('done');
    };
    return { calls, ...setup({ ...options, services: { [KEY_OPS_SERVICE]: handler } }) };
  }

  it('a plaintext service request is refused when verifyIncoming is off: key operations never act without encryption', async () => {
    const { inner, transport, core, calls } = withService({ keyring: Keyring.from([KEY]), verifyIncoming: false });
    const request = serviceRequestBytes(KEY_OPS_SERVICE, utf8('{"op":"remove","key":"..."}'));
    expect(await inner.deliverStream('attacker:1', request).replied).toBeUndefined();
    expect(calls).toEqual([]);
    expect(transport.counters.serviceRefused).toBe(1);
    expect(transport.counters.serviceRequests).toBe(0);
    expect(core.streams, 'nor does the core see it').toEqual([]);
  });

  it('without a keyring at all, a service request is refused', async () => {
    const { inner, transport, calls } = withService({ label: 'prod' });
    const request = concatBytes(labelHeader('prod'), serviceRequestBytes(KEY_OPS_SERVICE, utf8('{}')));
    expect(await inner.deliverStream('attacker:1', request).replied).toBeUndefined();
    expect(calls).toEqual([]);
    expect(transport.counters.serviceRefused).toBe(1);
  });

  it('an encrypted service request reaches its handler, never the core; the reply is encrypted; unknown ids are refused', async () => {
    const { inner, transport, core, calls } = withService({ keyring: Keyring.from([KEY]) });
    const encrypted = await encryptStream(await primary(), serviceRequestBytes(KEY_OPS_SERVICE, utf8('{"op":"list"}')), undefined);
    const reply = await inner.deliverStream('member:1', encrypted).replied;
    expect(calls).toEqual([{ from: 'member:1', body: utf8('{"op":"list"}'), encrypted: true }]);
    expect(reply?.[0]).toBe(10);
    for (const bytes of [serviceRequestBytes(99, utf8('x')), Uint8Array.of(0xc1)]) {
      expect(await inner.deliverStream('member:1', await encryptStream(await primary(), bytes, undefined)).replied).toBeUndefined();
    }
    await idle(transport);
    expect(transport.counters.serviceRequests).toBe(1);
    expect(transport.counters.serviceRefused).toBe(2);
    expect(core.streams).toEqual([]);
  });
});

describe('exceptions stay inside', () => {
  it('a core handler or a service handler that throws is counted and reported, never thrown', async () => {
    const inner = new FakeTransport();
    const reported: string[] = [];
    const transport = secureTransport(inner, {
      keyring: Keyring.from([KEY]),
      verifyIncoming: false,
      services: {
        7: () => {
          throw new Error('service broke');
        },
      },
      onError: (_error, where) => {
        reported.push(where);
        throw new Error('and onError throws too');
      },
    });
    transport.listen({
      packet: () => {
        throw new Error('core broke');
      },
      stream: () => {
        throw new Error('core broke');
      },
    });
    expect(() => inner.deliverPacket('a', utf8('plain'))).not.toThrow();
    expect(await inner.deliverStream('a', utf8('plain')).replied).toBeUndefined();
    const service = await encryptStream(await primary(), serviceRequestBytes(7, new Uint8Array(0)), undefined);
    expect(await inner.deliverStream('a', service).replied).toBeUndefined();
    await idle(transport);
    expect(reported.sort()).toEqual(['packet-handler', 'service', 'stream-handler']);
    expect(transport.counters.errors).toBe(3);
  });
});
