import { describe, expect, it } from 'vitest';
import {
  checkKeyOp,
  decodeKeyOpReply,
  decodeKeyOpRequest,
  encodeKeyOpReply,
  encodeKeyOpRequest,
  MAX_KEY_OP_REPLY_BYTES,
  MAX_KEY_OP_REPLY_KEYS,
  MAX_KEY_OP_REQUEST_BYTES,
  type KeyOp,
} from '../src/key-ops/codec.js';
import { formatKey, generateKey } from '../src/keyring.js';

const K1 = generateKey();
const K2 = generateKey();
const K16 = formatKey(new Uint8Array(16).fill(7));
const utf8 = (text: string) => new TextEncoder().encode(text);
const json = (value: unknown) => utf8(JSON.stringify(value));

describe('key op requests', () => {
  it.each<KeyOp>([{ op: 'list' }, { op: 'install', key: K1 }, { op: 'use', key: K16 }, { op: 'remove', key: K2 }])('round-trips %j', (op) => {
    expect(decodeKeyOpRequest(encodeKeyOpRequest(op))).toEqual({ ok: true, value: op });
  });

  it('canonicalises the key (a key file line with its newline is the same key)', () => {
    expect(decodeKeyOpRequest(json({ op: 'install', key: `  ${K1}\n` }))).toEqual({ ok: true, value: { op: 'install', key: K1 } });
  });

  it.each<[string, Uint8Array, RegExp]>([
    ['over 1 KiB', json({ op: 'install', key: K1, pad: 'x'.repeat(MAX_KEY_OP_REQUEST_BYTES) }), /request of \d+ bytes, at most 1024 allowed/],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /not UTF-8/],
    ['not JSON', utf8('{"op":"list"'), /not JSON/],
    ['empty', new Uint8Array(0), /not JSON/],
    ['an array', json([{ op: 'list' }]), /not an object/],
    ['null', json(null), /not an object/],
    ['a string', json('list'), /not an object/],
    ['an unknown op', json({ op: 'rotate', key: K1 }), /op must be one of list, install, use, remove, got "rotate"/],
    ['no op', json({ key: K1 }), /op must be one of .* got undefined/],
    ['a numeric op', json({ op: 1 }), /op must be one of .* got 1/],
    ['install without a key', json({ op: 'install' }), /key must be a base64 key, got undefined/],
    ['use with a numeric key', json({ op: 'use', key: 12 }), /key must be a base64 key, got 12/],
    ['remove with an object key', json({ op: 'remove', key: { k: K1 } }), /key must be a base64 key, got an object/],
    ['a key that is not base64', json({ op: 'install', key: '!!!!' }), /key: key is not base64/],
    ['an 8-byte key', json({ op: 'install', key: formatKeyOfLength(8) }), /key: key is 8 bytes, expected 16, 24 or 32/],
    ['an empty key', json({ op: 'install', key: '' }), /key: key is empty/],
    ['list with a key', json({ op: 'list', key: K1 }), /unknown field "key"/],
    ['an extra field', json({ op: 'use', key: K1, force: true }), /unknown field "force"/],
    ['a __proto__ field', utf8(`{"op":"list","__proto__":{"op":"install"}}`), /unknown field "__proto__"/],
  ])('refuses a request that is %s, naming the problem', (_name, bytes, error) => {
    const decoded = decodeKeyOpRequest(bytes);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error).toMatch(error);
  });

  it('never echoes a long hostile string in full', () => {
    const decoded = decodeKeyOpRequest(json({ op: 'x'.repeat(900) }));
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error.length).toBeLessThan(120);
  });

  it('encodeKeyOpRequest throws a TypeError for an invalid op (an operator error, not input)', () => {
    expect(() => encodeKeyOpRequest({ op: 'install', key: 'short' })).toThrow(TypeError);
    expect(() => encodeKeyOpRequest({ op: 'drop' } as unknown as KeyOp)).toThrow(/op must be one of/);
  });

  it('checkKeyOp accepts the ops an operator types', () => {
    expect(checkKeyOp({ op: 'use', key: K2 })).toEqual({ ok: true, value: { op: 'use', key: K2 } });
  });
});

describe('key op replies', () => {
  it.each([
    { ok: true, keys: [K1], primary: K1 },
    { ok: true, keys: [K2, K1, K16], primary: K2 },
    { ok: false, error: 'removing the primary key is not allowed', keys: [K1, K2], primary: K1 },
  ])('round-trips %j', (reply) => {
    expect(decodeKeyOpReply(encodeKeyOpReply(reply))).toEqual({ ok: true, value: reply });
  });

  const manyKeys = (n: number) => Array.from({ length: n }, (_, i) => formatKey(new Uint8Array(32).fill(0).map((_, j) => (j < 4 ? (i >> (8 * j)) & 0xff : 1))));

  it.each<[string, Uint8Array, RegExp]>([
    ['huge', utf8(`{"ok":true,"keys":["${K1}"],"primary":"${K1}","pad":"${'x'.repeat(MAX_KEY_OP_REPLY_BYTES)}"}`), /reply of \d+ bytes, at most 65536 allowed/],
    ['not JSON', utf8('<html>hello</html>'), /not JSON/],
    ['not UTF-8', new Uint8Array([0xc3, 0x28]), /not UTF-8/],
    ['an array', json([]), /not an object/],
    ['ok a string', json({ ok: 'yes', keys: [K1], primary: K1 }), /ok must be a boolean, got "yes"/],
    ['ok missing', json({ keys: [K1], primary: K1 }), /ok must be a boolean, got undefined/],
    ['keys not an array', json({ ok: true, keys: K1, primary: K1 }), /keys must be an array/],
    ['keys empty', json({ ok: true, keys: [], primary: K1 }), /keys is empty/],
    ['a bad key', json({ ok: true, keys: [K1, 'nope'], primary: K1 }), /keys\[1\]: key is/],
    ['a numeric key', json({ ok: true, keys: [K1, 5], primary: K1 }), /keys\[1\] must be a base64 key, got 5/],
    ['a repeated key (inflating the counts)', json({ ok: true, keys: [K1, K2, K1], primary: K1 }), /keys\[2\] repeats an earlier key/],
    ['too many keys', json({ ok: true, keys: manyKeys(MAX_KEY_OP_REPLY_KEYS + 1), primary: K1 }), /1025 keys, at most 1024 allowed/],
    ['primary missing', json({ ok: true, keys: [K1] }), /primary must be a base64 key, got undefined/],
    ['primary not among keys', json({ ok: true, keys: [K1], primary: K2 }), /primary is not among keys/],
    ['error a number', json({ ok: false, error: 42, keys: [K1], primary: K1 }), /error must be a string, got 42/],
    ['error too long', json({ ok: false, error: 'e'.repeat(513), keys: [K1], primary: K1 }), /error of 513 characters, at most 512 allowed/],
    ['an extra field', json({ ok: true, keys: [K1], primary: K1, members: 99 }), /unknown field "members"/],
  ])('refuses a reply that is %s, naming the problem', (_name, bytes, error) => {
    const decoded = decodeKeyOpReply(bytes);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error).toMatch(error);
  });

  it('a keyring of the largest size a reply may list still fits a reply', () => {
    const keys = manyKeys(MAX_KEY_OP_REPLY_KEYS);
    expect(new Set(keys).size).toBe(MAX_KEY_OP_REPLY_KEYS);
    const decoded = decodeKeyOpReply(encodeKeyOpReply({ ok: true, keys, primary: keys[0]! }));
    expect(decoded.ok).toBe(true);
  });

  it('deeply nested JSON is an error value, not a thrown stack overflow', () => {
    const depth = 30_000;
    const decoded = decodeKeyOpReply(utf8('['.repeat(depth) + ']'.repeat(depth)));
    expect(decoded.ok).toBe(false);
  });
});

function formatKeyOfLength(n: number): string {
  let text = '';
  for (const byte of new Uint8Array(n).fill(65)) text += String.fromCharCode(byte);
  return btoa(text);
}
