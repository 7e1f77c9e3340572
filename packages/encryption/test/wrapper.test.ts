// The wrapper's contract beyond the conformance suite: options, packet budget, the dialer's side of
// streams (replies that are plaintext, undecryptable or forged), requestService, setVerify, close.
import { describe, expect, it } from 'vitest';
import {
  encryptionOverhead,
  encryptStream,
  generateKey,
  Keyring,
  labelHeader,
  plaintextService,
  readLabel,
  secureTransport,
  validateSecureTransportOptions,
  type SecureTransportOptions,
} from '../src/index.js';
import { concatBytes } from '../src/bytes.js';
import { FakeTransport, recordingHandlers, utf8, waitFor } from './helpers.js';
import type { StreamResult } from '@swim/runtime';

const KEY = generateKey();
const keyring = () => Keyring.from([KEY]);
const primary = async () => (await keyring().cryptoKeys())[0]!;

describe('options', () => {
  it('lists every problem at once', () => {
    const problems = validateSecureTransportOptions({
      keyring: 'K' as never,
      label: '',
      verifyIncoming: 'yes' as never,
      verifyOutgoing: 1 as never,
      maxInFlight: 0,
      services: { 256: () => undefined, x: 'nope' } as never,
      onError: 3 as never,
      encrypt: true,
    } as SecureTransportOptions);
    expect(problems).toHaveLength(10);
    expect(problems.join('\n')).toMatch(/unknown option encrypt/);
    expect(problems.join('\n')).toMatch(/label must not be empty/);
    const invalid = () => secureTransport(new FakeTransport(), { maxInFlight: -1, label: 'x'.repeat(256) });
    expect(invalid).toThrow(RangeError);
    expect(invalid).toThrow(/2 problems/);
    expect(invalid).toThrow(/maxInFlight must be an integer/);
    expect(invalid).toThrow(/label is 256 UTF-8 bytes/);
  });

  it('valid options have no problems', () => {
    expect(validateSecureTransportOptions({})).toEqual([]);
    expect(validateSecureTransportOptions({ keyring: keyring(), label: 'prod', verifyIncoming: false, maxInFlight: 1, services: { 1: () => undefined } })).toEqual([]);
  });

  it('maxPacketBytes leaves room for the envelope (memberlist subtracts encryptOverhead and the label)', () => {
    expect(secureTransport(new FakeTransport(1400), {}).maxPacketBytes).toBe(1400);
    expect(secureTransport(new FakeTransport(1400), { keyring: keyring() }).maxPacketBytes).toBe(1400 - 29);
    expect(secureTransport(new FakeTransport(1400), { label: 'prod' }).maxPacketBytes).toBe(1400 - 6);
    expect(secureTransport(new FakeTransport(1400), { keyring: keyring(), label: 'prod' }).maxPacketBytes).toBe(1400 - 35);
    expect(encryptionOverhead(1)).toBe(29);
    expect(() => secureTransport(new FakeTransport(29), { keyring: keyring() })).toThrow(/no room left/);
  });

  it('setVerify switches live and refuses what is not a boolean', () => {
    const transport = secureTransport(new FakeTransport(), { keyring: keyring(), verifyIncoming: false });
    expect([transport.verifyIncoming, transport.verifyOutgoing]).toEqual([false, true]);
    transport.setVerify({ incoming: true, outgoing: false });
    expect([transport.verifyIncoming, transport.verifyOutgoing]).toEqual([true, false]);
    expect(() => transport.setVerify({ incoming: 'on' as never })).toThrow(TypeError);
    expect(transport.verifyIncoming).toBe(true);
  });
});

describe('what goes out', () => {
  it('packets: label header, then a version-1 blob with the label as additional data; plaintext with verifyOutgoing off', async () => {
    const inner = new FakeTransport();
    const transport = secureTransport(inner, { keyring: keyring(), label: 'prod' });
    transport.listen(recordingHandlers().handlers);
    transport.sendPacket('peer:1', utf8('gossip'));
    expect(inner.sent, 'encryption is asynchronous').toHaveLength(0);
    expect(await waitFor(() => inner.sent.length === 1)).toBe(true);
    const read = readLabel(inner.sent[0]!.bytes);
    expect(read.ok && read.label).toBe('prod');
    expect(read.ok && read.rest.length).toBe(6 + 29);
    expect(read.ok && read.rest[0]).toBe(1);
    transport.setVerify({ outgoing: false });
    transport.sendPacket('peer:1', utf8('gossip'));
    expect(inner.sent[1]!.bytes).toEqual(concatBytes(labelHeader('prod'), utf8('gossip')));
    expect(transport.counters.packetsEncrypted).toBe(1);
  });

  it('stream requests: label header and [10][length][blob]; the reply is opened for the caller', async () => {
    const inner = new FakeTransport();
    const transport = secureTransport(inner, { keyring: keyring(), label: 'prod' });
    const results: StreamResult[] = [];
    transport.request('peer:1', utf8('push-pull'), { timeoutMs: 1000, expectReply: true }, (r) => results.push(r));
    expect(await waitFor(() => inner.requests.length === 1)).toBe(true);
    const sent = inner.requests[0]!;
    expect(sent.options).toEqual({ timeoutMs: 1000, expectReply: true });
    const read = readLabel(sent.bytes);
    expect(read.ok && read.label).toBe('prod');
    expect(read.ok && read.rest[0]).toBe(10);
    sent.done({ ok: true, bytes: await encryptStream(await primary(), utf8('state'), 'prod') });
    expect(await waitFor(() => results.length === 1)).toBe(true);
    expect(results).toEqual([{ ok: true, bytes: utf8('state') }]);
    expect(transport.counters.streamsEncrypted).toBe(1);
    expect(transport.counters.streamsDecrypted).toBe(1);
  });
});

describe('replies a dialer must not believe', () => {
  async function ask(options: SecureTransportOptions, reply: (inner: FakeTransport) => Promise<StreamResult>) {
    const inner = new FakeTransport();
    const transport = secureTransport(inner, options);
    const results: StreamResult[] = [];
    transport.request('peer:1', utf8('push-pull'), { timeoutMs: 1000, expectReply: true }, (r) => results.push(r));
    expect(await waitFor(() => inner.requests.length === 1)).toBe(true);
    inner.requests[0]!.done(await reply(inner));
    expect(await waitFor(() => results.length === 1)).toBe(true);
    return { result: results[0]!, counters: transport.counters };
  }

  it('a plaintext reply with verifyIncoming on fails the request', async () => {
    const { result, counters } = await ask({ keyring: keyring() }, async () => ({ ok: true, bytes: utf8('forged state') }));
    expect(result.ok).toBe(false);
    expect(counters.plaintextRefused).toBe(1);
  });

  it('a plaintext reply with verifyIncoming off is accepted and counted', async () => {
    const { result, counters } = await ask({ keyring: keyring(), verifyIncoming: false }, async () => ({ ok: true, bytes: utf8('old member') }));
    expect(result).toEqual({ ok: true, bytes: utf8('old member') });
    expect(counters.plaintextAccepted).toBe(1);
  });

  it('a reply under another key, or another label, or claiming 4 GiB fails the request', async () => {
    const other = (await Keyring.from([generateKey()]).cryptoKeys())[0]!;
    for (const bytes of [
      await encryptStream(other, utf8('state'), undefined),
      await encryptStream(await primary(), utf8('state'), 'dev'),
      concatBytes(Uint8Array.of(10, 0xff, 0xff, 0xff, 0xff), new Uint8Array(50)),
    ]) {
      const { result, counters } = await ask({ keyring: keyring() }, async () => ({ ok: true, bytes }));
      expect(result.ok).toBe(false);
      expect(counters.decryptFailures).toBe(1);
    }
  });

  it('failures of the inner transport pass through', async () => {
    const { result } = await ask({ keyring: keyring() }, async () => ({ ok: false, reason: 'timeout' }));
    expect(result).toEqual({ ok: false, reason: 'timeout' });
  });
});

describe('requestService', () => {
  it('is encrypted even with verifyOutgoing off, and needs an encrypted reply', async () => {
    const inner = new FakeTransport();
    const transport = secureTransport(inner, { keyring: keyring(), verifyOutgoing: false, verifyIncoming: false });
    const pending = transport.requestService('peer:1', 1, utf8('{"op":"list"}'), 1000);
    expect(await waitFor(() => inner.requests.length === 1)).toBe(true);
    expect(inner.requests[0]!.bytes[0]).toBe(10);
    inner.requests[0]!.done({ ok: true, bytes: utf8('plaintext answer') });
    expect(await pending).toEqual({ ok: false, reason: 'encryption is configured but the reply is not encrypted' });
    expect(() => transport.requestService('peer:1', 256, new Uint8Array(0), 1000)).toThrow(RangeError);
  });

  it('end to end between two wrappers: the handler answers, the caller gets the plaintext; no reply is a failure', async () => {
    const a = new FakeTransport();
    const b = new FakeTransport();
    const server = secureTransport(b, { keyring: keyring(), services: { 3: ({ body }) => concatBytes(utf8('echo '), body), 4: () => undefined } });
    server.listen(recordingHandlers().handlers);
    const client = secureTransport(a, { keyring: keyring() });
    for (const [service, expected] of [
      [3, { ok: true, bytes: utf8('echo hi') }],
      [4, { ok: false, reason: 'closed without a reply (service refused)' }],
    ] as const) {
      const pending = client.requestService('b', service, utf8('hi'), 1000);
      expect(await waitFor(() => a.requests.length > 0)).toBe(true);
      const request = a.requests.shift()!;
      request.done({ ok: true, bytes: await b.deliverStream('a', request.bytes).replied });
      expect(await pending).toEqual(expected);
    }
  });

  it('a handler marked plaintextService answers plaintext requests', async () => {
    const inner = new FakeTransport();
    const transport = secureTransport(inner, { services: { 9: plaintextService(() => utf8('pong')) } });
    transport.listen(recordingHandlers().handlers);
    expect(await inner.deliverStream('a', Uint8Array.of(0xc1, 9)).replied).toEqual(utf8('pong'));
  });
});

describe('close', () => {
  it('fails requests still being encrypted, drops later input, and is idempotent', async () => {
    const inner = new FakeTransport();
    const transport = secureTransport(inner, { keyring: keyring() });
    const core = recordingHandlers();
    transport.listen(core.handlers);
    const results: StreamResult[] = [];
    transport.request('peer:1', utf8('x'), { timeoutMs: 1000, expectReply: true }, (r) => results.push(r));
    const closing = transport.close();
    expect(transport.close()).toBe(closing);
    await closing;
    expect(await waitFor(() => results.length === 1)).toBe(true);
    expect(results[0]!.ok).toBe(false);
    expect(inner.closed).toBe(true);
    inner.deliverPacket('peer:1', utf8('late'));
    transport.sendPacket('peer:1', utf8('late'));
    const late: StreamResult[] = [];
    transport.request('peer:1', utf8('late'), { timeoutMs: 1000, expectReply: true }, (r) => late.push(r));
    expect(late, 'never inside request').toEqual([]);
    expect(await waitFor(() => late.length === 1)).toBe(true);
    expect(late[0]!.ok).toBe(false);
    // Let the request's encryption finish: it must not reach the closed inner transport.
    expect(await waitFor(() => transport.inFlight === 0)).toBe(true);
    expect(inner.requests).toEqual([]);
    expect(core.packets).toEqual([]);
  });
});
