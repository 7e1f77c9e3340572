// Byte-for-byte test vectors: memberlist's encrypted message format (memberlist security.go, net.go
// encryptLocalState) and a packet captured from a real Serf agent.
import { describe, expect, it } from 'vitest';
import {
  decryptBlob,
  decryptStream,
  encryptBlob,
  encryptionOverhead,
  encryptStream,
  Keyring,
  labelHeader,
  parseKey,
  readLabel,
  sealPacket,
  openPacket,
  webCryptoEngine,
  type AesGcmEngine,
  type AesGcmKey,
} from '../src/index.js';
import { nodeCryptoEngine } from '../src/node/index.js';
import { hex, toHex, utf8 } from './helpers.js';

const KEY = hex('000102030405060708090a0b0c0d0e0f');
const NONCE = hex('0102030405060708090a0b0c');
const PLAINTEXT = hex('0082a44e6f6465a162a55365714e6f01');

// Every vector on both engines: they must write and read the same bytes.
describe.each([webCryptoEngine, nodeCryptoEngine] as AesGcmEngine[])('engine $name', (engine) => {
async function cryptoKey(raw: Uint8Array): Promise<AesGcmKey> {
  return (await Keyring.from([raw], { engine }).cryptoKeys())[0]!;
}

describe('AES-GCM blobs (memberlist security.go)', () => {
  it('version 1, no additional data', async () => {
    const key = await cryptoKey(KEY);
    const blob = await encryptBlob(key, PLAINTEXT, undefined, { nonce: NONCE });
    expect(toHex(blob)).toBe('010102030405060708090a0b0c0687cc685c913a645af95e20dc9602340df3d25d043b7ead22658f5d4fc7f8a4');
    expect(blob.length).toBe(PLAINTEXT.length + encryptionOverhead(1));
    expect(await decryptBlob([key], blob)).toEqual(PLAINTEXT);
  });

  it('version 1, additional data "prod"', async () => {
    const key = await cryptoKey(KEY);
    const blob = await encryptBlob(key, PLAINTEXT, utf8('prod'), { nonce: NONCE });
    expect(toHex(blob)).toBe('010102030405060708090a0b0c0687cc685c913a645af95e20dc960234e3cebcee4c2a8aef04646180131df867');
    expect(await decryptBlob([key], blob, utf8('prod'))).toEqual(PLAINTEXT);
    expect(await decryptBlob([key], blob), 'without the additional data').toBeUndefined();
    expect(await decryptBlob([key], blob, utf8('dev')), 'with other additional data').toBeUndefined();
  });

  it('version 0 (PKCS#7 padded: a full block for 16 aligned bytes)', async () => {
    const key = await cryptoKey(KEY);
    const blob = await encryptBlob(key, PLAINTEXT, undefined, { nonce: NONCE, version: 0 });
    expect(toHex(blob)).toBe(
      '000102030405060708090a0b0c0687cc685c913a645af95e20dc960234d1dbf74dfeb1fc7c4db52b47f4997c4c83ed2858a6494eb423a931b6848e4df9',
    );
    expect(blob.length).toBe(PLAINTEXT.length + encryptionOverhead(0));
    expect(await decryptBlob([key], blob)).toEqual(PLAINTEXT);
  });

  it('a stream: [10][length][blob], additional data = the 5 header bytes', async () => {
    const key = await cryptoKey(KEY);
    const plaintext = hex('0881aa557365724d73674c656e026869');
    const stream = await encryptStream(key, plaintext, undefined, { nonce: NONCE });
    expect(toHex(stream)).toBe('0a0000002d010102030405060708090a0b0c0e84c27340902d884b3b4120c3da055cf21851bf788686d390dcd3fe3f8f7c3b');
    expect(await decryptStream([key], stream, undefined)).toEqual({ ok: true, plaintext });
  });

  it('decrypts a packet captured from a real Serf agent', async () => {
    const keyring = Keyring.from(['2Y9E1lSUT8sZgkcxwjZl5Nw1y9SsCJMqxj0wIr2lyv8='], { engine });
    const packet = hex(
      '01 | 77ffcad1e1ee2c2014c9d9b0 | 42d67b82f9f1337dd47d95790ccb7ad5d2dfe3d5c3b6c79ab94eab5b902a10babc330f8a1b7a4fe5b2afca6a84543ad52d910b22a37e49e1172d841b57 | 78cb340843a9fe9dc191571bf81a0907',
    );
    expect(packet.length).toBe(90);
    const plaintext = await decryptBlob(await keyring.cryptoKeys(), packet);
    expect(toHex(plaintext!)).toBe(
      '0085a44e6f6465a26532a55365714e6f01aa536f7572636541646472a47f000001aa536f757263654e6f6465a26531aa536f75726365506f7274cdb98c',
    );
    // The same packet as the wrapper's envelope opens it (no label, verifyIncoming on).
    expect(await openPacket(packet, { label: undefined, keys: await keyring.cryptoKeys(), verifyIncoming: true })).toEqual({
      ok: true,
      plaintext,
      encrypted: true,
    });
  });

  it('the key of the capture parses as 32 bytes', () => {
    expect(parseKey('2Y9E1lSUT8sZgkcxwjZl5Nw1y9SsCJMqxj0wIr2lyv8=').length).toBe(32);
  });
});

describe('label header (memberlist label.go)', () => {
  it('is f4 04 "prod" before the packet', async () => {
    expect(toHex(labelHeader('prod'))).toBe('f40470726f64');
    const key = await cryptoKey(KEY);
    const packet = await sealPacket(PLAINTEXT, { label: 'prod', key, nonce: NONCE });
    // The label is the packet's additional data: the blob is the "prod" vector above.
    expect(toHex(packet)).toBe('f40470726f64' + '010102030405060708090a0b0c0687cc685c913a645af95e20dc960234e3cebcee4c2a8aef04646180131df867');
    const read = readLabel(packet);
    expect(read.ok && read.label).toBe('prod');
  });
});
});
