/**
 * The wire promise for envelopes: what every release wrote (packets, stream requests and replies,
 * encryption versions 0 and 1, AES-256 and AES-128, with and without a label) still opens, with
 * today's code and the committed test key, to the committed plaintext, which today's core still
 * decodes to the committed messages. Each release's fixtures are committed in wire-fixtures/
 * (written once by generate.ts). A failure means members of that release could not be heard:
 * fix the change, not the fixture.
 */
import { swimCodec, type Message } from '@swim/core';
import type { StreamResult } from '@swim/runtime';
import { describe, expect, it } from 'vitest';
import { Keyring, openPacket, openStream, secureTransport } from '../src/index.js';
import { FakeTransport, recordingHandlers, waitFor } from './helpers.js';
import { fromFixtureJson, fromHex, readFixtureFiles, toHex, type EnvelopeFixture, type EnvelopeFixtureFile } from './wire-fixtures/fixture-file.js';

const files = readFixtureFiles();

it('finds the committed envelope fixtures, 0.1.0 first', () => {
  expect(files[0]?.version).toBe('0.1.0');
});

/** The plaintext as secureTransport hands it on: a received packet or stream request, or the reply to a request. */
async function openThroughTransport(fixture: EnvelopeFixture, keyring: Keyring): Promise<Uint8Array | undefined> {
  const inner = new FakeTransport();
  const transport = secureTransport(inner, { keyring, ...(fixture.label === undefined ? {} : { label: fixture.label }) });
  const { packets, streams, handlers } = recordingHandlers();
  transport.listen(handlers);
  const bytes = fromHex(fixture.hex);
  if (fixture.kind === 'stream-reply') {
    const results: StreamResult[] = [];
    transport.request('peer:1', Uint8Array.of(1), { timeoutMs: 1000, expectReply: true }, (result) => results.push(result));
    await waitFor(() => inner.requests.length > 0);
    inner.requests[0]?.done({ ok: true, bytes });
    await waitFor(() => results.length > 0);
    return results[0]?.ok ? results[0].bytes : undefined;
  }
  if (fixture.kind === 'packet') inner.deliverPacket('peer:1', bytes);
  else inner.deliverStream('peer:1', bytes);
  // Once no crypto is pending, whatever was going to be delivered has been.
  await waitFor(() => transport.inFlight === 0);
  return (fixture.kind === 'packet' ? packets : streams)[0]?.bytes;
}

describe.each(files.map((file) => [file.version, file] as const))('envelope fixtures of %s', (version, file: EnvelopeFixtureFile) => {
  const plaintexts = new Map(file.plaintexts.map((plaintext) => [plaintext.name, plaintext]));

  it.each(file.envelopes.map((fixture) => [fixture.name, fixture] as const))('%s opens to its core packet', async (name, fixture) => {
    const where = `envelope fixture '${name}' of ${version}`;
    const plaintext = plaintexts.get(fixture.plaintext);
    const key = file.keys[fixture.key];
    if (plaintext === undefined || key === undefined) return expect.fail(`${where} names a plaintext or key the file does not have`);
    const keyring = Keyring.from([key]);
    const options = { label: fixture.label, keys: await keyring.cryptoKeys(), verifyIncoming: true };
    const bytes = fromHex(fixture.hex);
    const opened =
      fixture.kind === 'packet' ? await openPacket(bytes, options) : await openStream(bytes, { ...options, labelHeader: fixture.kind === 'stream-request' });
    if (!opened.ok) return expect.fail(`${where} no longer opens: ${opened.failure}: ${opened.reason}`);
    expect(toHex(opened.plaintext), `${where} opens to another plaintext`).toBe(plaintext.hex);

    // secureTransport writes and accepts only version 1: its own envelopes must still reach the member.
    if (fixture.encryptionVersion === 1) {
      const delivered = await openThroughTransport(fixture, keyring);
      expect(delivered && toHex(delivered), `${where} is not delivered by secureTransport`).toBe(plaintext.hex);
    }

    const decoded = plaintext.kind === 'packet' ? swimCodec.decodePacket(opened.plaintext) : swimCodec.decodeStream(opened.plaintext, {});
    if (!decoded.ok) return expect.fail(`${where}: the core no longer decodes its plaintext: ${decoded.error.code}: ${decoded.error.detail}`);
    expect(decoded.messages, `${where}: the core decodes its plaintext to other messages`).toEqual(fromFixtureJson(plaintext.messages) as Message[]);
  });
});
