import { describe, expect, it } from 'vitest';
import { decodeKeyOpReply, type KeyOpReply } from '../src/key-ops/codec.js';
import { keyOpsService } from '../src/key-ops/service.js';
import { generateKey, Keyring } from '../src/keyring.js';

const K1 = generateKey();
const K2 = generateKey();
const K3 = generateKey();
const utf8 = (text: string) => new TextEncoder().encode(text);
const body = (value: unknown) => utf8(JSON.stringify(value));

async function ask(keyring: Keyring, request: Uint8Array, encrypted = true): Promise<KeyOpReply | undefined> {
  const bytes = await keyOpsService(keyring)({ from: 'peer:1', body: request, encrypted });
  if (bytes === undefined) return undefined;
  const reply = decodeKeyOpReply(bytes);
  if (!reply.ok) throw new Error(`the service sent an invalid reply: ${reply.error}`);
  return reply.value;
}

describe('keyOpsService', () => {
  it.each<[string, string[], unknown, Partial<KeyOpReply>, string[]]>([
    ['list', [K1, K2], { op: 'list' }, { ok: true }, [K1, K2]],
    ['install a new key (after the others)', [K1], { op: 'install', key: K2 }, { ok: true }, [K1, K2]],
    ['install a key already there (no-op, memberlist AddKey)', [K1, K2], { op: 'install', key: K2 }, { ok: true }, [K1, K2]],
    ['use an installed key', [K1, K2, K3], { op: 'use', key: K3 }, { ok: true }, [K3, K1, K2]],
    ['use the primary (no-op)', [K1, K2], { op: 'use', key: K1 }, { ok: true }, [K1, K2]],
    ['use a key not installed (memberlist UseKey refuses)', [K1], { op: 'use', key: K2 }, { ok: false, error: expect.stringMatching(/not installed/) as string }, [K1]],
    ['remove a secondary key', [K2, K1], { op: 'remove', key: K1 }, { ok: true }, [K2]],
    ['remove a key not there (no-op, memberlist RemoveKey)', [K1], { op: 'remove', key: K2 }, { ok: true }, [K1]],
    ['remove the primary (refused)', [K1, K2], { op: 'remove', key: K1 }, { ok: false, error: expect.stringMatching(/removing the primary key is not allowed/) as string }, [K1, K2]],
    ['a request that is not JSON', [K1], 'nope', { ok: false, error: 'bad request: not JSON' }, [K1]],
    ['an unknown op', [K1], { op: 'wipe' }, { ok: false, error: expect.stringMatching(/^bad request: op must be one of/) as string }, [K1]],
    ['a bad key', [K1], { op: 'install', key: 'AAAA' }, { ok: false, error: 'bad request: key: key is 3 bytes, expected 16, 24 or 32' }, [K1]],
  ])('%s', async (_name, initial, request, expected, after) => {
    const keyring = Keyring.from(initial);
    const reply = await ask(keyring, typeof request === 'string' ? utf8(request) : body(request));
    expect(reply).toMatchObject({ ...expected, keys: after, primary: after[0] });
    expect(keyring.list()).toEqual(after);
    if (expected.ok === true) expect(reply).not.toHaveProperty('error');
  });

  it('refuses a request of more than 1 KiB without applying it', async () => {
    const keyring = Keyring.from([K1]);
    const reply = await ask(keyring, body({ op: 'install', key: K2, padding: 'x'.repeat(1100) }));
    expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/^bad request: request of \d+ bytes, at most 1024 allowed/) as string });
    expect(keyring.list()).toEqual([K1]);
  });

  it.each([
    ['install', { op: 'install', key: K2 }, [K1]],
    ['use', { op: 'use', key: K2 }, [K1, K2]],
    ['remove', { op: 'remove', key: K2 }, [K1, K2]],
    ['list', { op: 'list' }, [K1, K2]],
  ])('a plaintext %s request is closed without a reply and not applied', async (_op, request, initial) => {
    const keyring = Keyring.from(initial);
    expect(await ask(keyring, body(request), false)).toBeUndefined();
    expect(keyring.list()).toEqual(initial);
  });

  it('a change that a keyring listener failed to persist is applied but reported', async () => {
    const keyring = Keyring.from([K1]);
    keyring.onChange(() => {
      throw new Error('could not write keyring file: disk full');
    });
    const reply = await ask(keyring, body({ op: 'install', key: K2 }));
    expect(reply).toEqual({ ok: false, error: 'could not write keyring file: disk full', keys: [K1, K2], primary: K1 });
  });

  it('an error message longer than a reply may carry is cut, so the reply is still sent', async () => {
    const keyring = Keyring.from([K1]);
    keyring.onChange(() => {
      throw new Error('x'.repeat(5000));
    });
    const reply = await ask(keyring, body({ op: 'install', key: K2 }));
    expect(reply?.ok).toBe(false);
    expect(reply?.error).toHaveLength(512);
  });

  it('never throws: a keyring that cannot list itself gives no reply', async () => {
    const broken = {
      get primary(): string {
        throw new Error('broken');
      },
      list: () => {
        throw new Error('broken');
      },
    } as unknown as Keyring;
    expect(await keyOpsService(broken)({ from: 'peer:1', body: body({ op: 'list' }), encrypted: true })).toBeUndefined();
  });
});
