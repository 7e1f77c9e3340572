// The keyring: parseKey errors, memberlist keyring semantics (keyring.go AddKey, UseKey, RemoveKey,
// GetKeys) as tables, and the algebra of any sequence of operations as a property.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatKey, generateKey, Keyring, KeyringError, parseKey } from '../src/index.js';

const A = formatKey(new Uint8Array(16).fill(1));
const B = formatKey(new Uint8Array(24).fill(2));
const C = formatKey(new Uint8Array(32).fill(3));
const D = formatKey(new Uint8Array(32).fill(4));

describe('parseKey', () => {
  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['not base64!', /not base64/],
    ['AAAA AAAA', /not base64/],
    ['AAECAwQFBgcICQoLDA0ODw', /not base64/], // unpadded
    ['AAECAwQFBgcICQoLDA0ODw==='.slice(0, 23), /not base64/],
    ['AAECAwQFBgcICQoLDA0O-w==', /not base64/], // URL alphabet
    ['AAECAwQFBgcICQoLDA0ODxA=', /17 bytes, expected 16, 24 or 32/],
    ['AAECAwQFBgcICQoLDA0O', /15 bytes/],
    ['A'.repeat(48), /36 bytes/],
    ['AA==', /1 bytes/],
  ])('%j is refused (%s)', (text, message) => {
    expect(() => parseKey(text)).toThrow(KeyringError);
    expect(() => parseKey(text)).toThrow(message);
  });

  it('never puts the key in its message', () => {
    const text = formatKey(new Uint8Array(32).fill(9)).slice(0, 40);
    try {
      parseKey(text);
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain(text);
    }
  });

  it.each([16, 24, 32])('%i-byte keys round-trip through formatKey', (size) => {
    const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 37) & 0xff);
    expect(parseKey(formatKey(bytes))).toEqual(bytes);
    expect(parseKey(`  ${formatKey(bytes)}\n`)).toEqual(bytes);
  });

  it('generateKey makes distinct 32-byte keys', () => {
    const keys = new Set(Array.from({ length: 20 }, generateKey));
    expect(keys.size).toBe(20);
    for (const key of keys) expect(parseKey(key).length).toBe(32);
  });

  it('formatKey refuses other sizes', () => {
    expect(() => formatKey(new Uint8Array(20))).toThrow(/20 bytes/);
  });
});

describe('Keyring (memberlist keyring.go)', () => {
  it('from: first key primary, duplicates collapsed, bytes and text alike', () => {
    const ring = Keyring.from([B, A, parseKey(B), C, A]);
    expect(ring.primary).toBe(B);
    expect(ring.list()).toEqual([B, A, C]);
  });

  it('from: an empty list, and every bad key listed by position without its value', () => {
    expect(() => Keyring.from([])).toThrow(/at least one key/);
    try {
      Keyring.from([A, 'no!', 'AAAA', C]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(KeyringError);
      const message = String((error as Error).message);
      expect(message).toContain('2 problems');
      expect(message).toContain('key 2: key is not base64');
      expect(message).toContain('key 3: key is 3 bytes');
    }
  });

  type Op = ['install' | 'use' | 'remove', string];
  it.each<[string, string[], Op[], string[] | RegExp]>([
    ['install appends', [A], [['install', B]], [A, B]],
    ['install of an installed key is a no-op', [A, B], [['install', A]], [A, B]],
    ['use moves an installed key first, the rest keep their order', [A, B, C], [['use', C]], [C, A, B]],
    ['use of the primary is a no-op', [A, B], [['use', A]], [A, B]],
    ['use of a key not installed is refused', [A], [['use', B]], /not installed/],
    ['remove drops a secondary key', [A, B, C], [['remove', B]], [A, C]],
    ['remove of a key not installed is a no-op', [A, B], [['remove', C]], [A, B]],
    ['remove of the primary is refused', [A, B], [['remove', A]], /primary/],
    ['rotation: install, use, remove', [A], [['install', D], ['use', D], ['remove', A]], [D]],
    ['install of an invalid key is refused', [A], [['install', 'AAAA']], /3 bytes/],
  ])('%s', (_name, initial, ops, expected) => {
    const ring = Keyring.from(initial);
    const run = () => {
      for (const [op, key] of ops) ring[op](key);
    };
    if (expected instanceof RegExp) {
      expect(run).toThrow(KeyringError);
      expect(() => Keyring.from(initial)[ops[0]![0]](ops[0]![1])).toThrow(expected);
      expect(ring.list(), 'a refused operation changes nothing').toEqual(initial);
    } else {
      run();
      expect(ring.list()).toEqual(expected);
      expect(ring.primary).toBe(expected[0]);
    }
  });

  it('has: by text or bytes; false for invalid text', () => {
    const ring = Keyring.from([A, B]);
    expect(ring.has(A)).toBe(true);
    expect(ring.has(parseKey(B))).toBe(true);
    expect(ring.has(C)).toBe(false);
    expect(ring.has('garbage')).toBe(false);
  });

  it('onChange: called after each change with the new list, not for no-ops; unsubscribes', () => {
    const ring = Keyring.from([A]);
    const seen: string[][] = [];
    const stop = ring.onChange((keys) => seen.push([...keys]));
    ring.install(B);
    ring.install(B);
    ring.use(B);
    ring.use(B);
    ring.remove(C);
    ring.remove(A);
    stop();
    ring.install(C);
    expect(seen).toEqual([[A, B], [B, A], [B]]);
  });

  it('onChange: a listener that throws does not stop the others; the change stands and the error reaches the caller', () => {
    const ring = Keyring.from([A]);
    const seen: number[] = [];
    ring.onChange(() => {
      throw new Error('disk full');
    });
    ring.onChange((keys) => seen.push(keys.length));
    expect(() => ring.install(B)).toThrow('disk full');
    expect(seen).toEqual([2]);
    expect(ring.list()).toEqual([A, B]);
  });

  it('cryptoKeys: in list order, imported once per key and cached', async () => {
    const ring = Keyring.from([A, B]);
    const first = await ring.cryptoKeys();
    expect(first).toHaveLength(2);
    expect(await ring.cryptoKeys()).toBe(first);
    ring.install(C);
    ring.use(C);
    const after = await ring.cryptoKeys();
    expect(after).toHaveLength(3);
    expect(after[1]).toBe(first[0]);
    expect(after[2]).toBe(first[1]);
    for (const key of after) expect(typeof key.seal).toBe('function');
  });
});

describe('keyring algebra (any sequence of install, use, remove)', () => {
  const pool = [A, B, C, D];
  const op = fc.tuple(fc.constantFrom('install', 'use', 'remove' as const), fc.constantFrom(...pool));

  it('primary first, the primary never removed, no duplicates, and the list is what the operations say', () => {
    fc.assert(
      fc.property(fc.constantFrom(...pool), fc.array(op, { maxLength: 40 }), (initial, ops) => {
        const ring = Keyring.from([initial]);
        // A model of memberlist's keyring: an array, primary first.
        let model = [initial];
        for (const [name, key] of ops) {
          const before = ring.list();
          let refused = false;
          try {
            ring[name](key);
          } catch (error) {
            expect(error).toBeInstanceOf(KeyringError);
            refused = true;
          }
          if (name === 'install' && !model.includes(key)) model = [...model, key];
          if (name === 'use') {
            expect(refused).toBe(!model.includes(key));
            if (!refused) model = [key, ...model.filter((k) => k !== key)];
          }
          if (name === 'remove') {
            expect(refused).toBe(key === model[0]);
            if (!refused) model = model.filter((k) => k !== key);
          }
          if (refused) expect(ring.list()).toEqual(before);
          const list = ring.list();
          expect(list).toEqual(model);
          expect(ring.primary).toBe(list[0]);
          expect(new Set(list).size).toBe(list.length);
          expect(list.length).toBeGreaterThan(0);
          // Only use changes the primary: install and remove never drop or replace it.
          if (name !== 'use') expect(list[0]).toBe(before[0]);
        }
      }),
    );
  });
});
