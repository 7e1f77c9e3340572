// Properties of the blob format over any plaintext, additional data, key size and version.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decryptBlob, encryptBlob, encryptedLength, Keyring, webCryptoEngine, type AesGcmEngine, type AesGcmKey, type EncryptionVersion } from '../src/index.js';
import { nodeCryptoEngine } from '../src/node/index.js';

const keyBytes = fc.constantFrom(16, 24, 32).chain((size) => fc.uint8Array({ minLength: size, maxLength: size }));
const version = fc.constantFrom<EncryptionVersion>(0, 1);
const plaintext = fc.uint8Array({ maxLength: 600 });
const aad = fc.option(fc.uint8Array({ minLength: 1, maxLength: 300 }), { nil: undefined });

async function cryptoKey(raw: Uint8Array, engine: AesGcmEngine = webCryptoEngine): Promise<AesGcmKey> {
  return (await Keyring.from([raw], { engine }).cryptoKeys())[0]!;
}

describe('the engines agree (webcrypto, node:crypto)', () => {
  it('what one seals the other opens, byte for byte the same blob for the same nonce', async () => {
    await fc.assert(
      fc.asyncProperty(keyBytes, version, plaintext, aad, fc.uint8Array({ minLength: 12, maxLength: 12 }), async (raw, v, text, data, nonce) => {
        const [web, node] = await Promise.all([cryptoKey(raw, webCryptoEngine), cryptoKey(raw, nodeCryptoEngine)]);
        const fromWeb = await encryptBlob(web, text, data, { version: v, nonce });
        expect(await encryptBlob(node, text, data, { version: v, nonce })).toEqual(fromWeb);
        expect(await decryptBlob([node], fromWeb, data)).toEqual(text);
        const flipped = fromWeb.slice();
        flipped[flipped.length - 1]! ^= 1;
        expect(await decryptBlob([node], flipped, data)).toBeUndefined();
      }),
    );
  });
});

describe('encryptBlob / decryptBlob', () => {
  it('round trip: any plaintext, with and without additional data, key sizes 16/24/32, versions 0 and 1', async () => {
    await fc.assert(
      fc.asyncProperty(keyBytes, version, plaintext, aad, async (raw, v, text, data) => {
        const key = await cryptoKey(raw);
        const blob = await encryptBlob(key, text, data, { version: v });
        expect(blob[0]).toBe(v);
        expect(blob.length).toBe(encryptedLength(v, text.length));
        expect(await decryptBlob([key], blob, data)).toEqual(text);
      }),
    );
  });

  it('a flipped bit anywhere fails when only the blob version is accepted', async () => {
    await fc.assert(
      fc.asyncProperty(keyBytes, version, plaintext, aad, fc.nat(), fc.integer({ min: 0, max: 7 }), async (raw, v, text, data, at, bit) => {
        const key = await cryptoKey(raw);
        const blob = await encryptBlob(key, text, data, { version: v });
        const flipped = blob.slice();
        flipped[at % flipped.length]! ^= 1 << bit;
        expect(await decryptBlob([key], flipped, data, { versions: [v] })).toBeUndefined();
      }),
    );
  });

  it('a flipped bit outside the version byte fails with both versions accepted (memberlist decryptPayload)', async () => {
    await fc.assert(
      fc.asyncProperty(keyBytes, version, plaintext, aad, fc.nat(), fc.integer({ min: 0, max: 7 }), async (raw, v, text, data, at, bit) => {
        const key = await cryptoKey(raw);
        const blob = await encryptBlob(key, text, data, { version: v });
        const flipped = blob.slice();
        flipped[1 + (at % (flipped.length - 1))]! ^= 1 << bit;
        expect(await decryptBlob([key], flipped, data)).toBeUndefined();
      }),
    );
  });

  it('the version byte is not authenticated: a version-0 blob read as version 1 opens with its padding (why the wrapper accepts version 1 only)', async () => {
    const key = await cryptoKey(new Uint8Array(32).fill(7));
    const text = new TextEncoder().encode('hello');
    const blob = await encryptBlob(key, text, undefined, { version: 0 });
    const relabelled = blob.slice();
    relabelled[0] = 1;
    const opened = await decryptBlob([key], relabelled);
    expect(opened?.length).toBe(16); // 5 bytes and 11 of padding
    expect(await decryptBlob([key], relabelled, undefined, { versions: [0] })).toBeUndefined();
  });

  it('other additional data, or a key not in the list, fails; every key of the list is tried', async () => {
    await fc.assert(
      fc.asyncProperty(keyBytes, keyBytes, version, plaintext, fc.uint8Array({ minLength: 1, maxLength: 64 }), async (rawA, rawB, v, text, data) => {
        fc.pre(rawA.length !== rawB.length || rawA.some((b, i) => b !== rawB[i]));
        const [a, b] = [await cryptoKey(rawA), await cryptoKey(rawB)];
        const blob = await encryptBlob(a, text, data, { version: v });
        expect(await decryptBlob([b], blob, data)).toBeUndefined();
        expect(await decryptBlob([a], blob, data.slice(1))).toBeUndefined();
        expect(await decryptBlob([b, a], blob, data)).toEqual(text);
      }),
      { numRuns: 50 },
    );
  });
});
