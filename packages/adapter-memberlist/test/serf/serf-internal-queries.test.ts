import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../src/serf/base64.js';
import {
  decodeConflictResponse,
  decodeKeyRequest,
  decodeKeyResponse,
  encodeConflictResponse,
  encodeKeyRequest,
  encodeKeyResponse,
} from '../../src/serf/serf-internal-messages.js';
import { collectKeyResponses, keyRequestPayload, type KeyQueryReplies } from '../../src/serf/serf-key-manager.js';
import { answerKeyQuery, type SerfKeyring } from '../../src/serf/serf-keyring.js';
import { encodeSerfQueryResponse } from '../../src/serf/serf-query-messages.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');

const K = 'l//uQ2wkwi2jl/LxURRnL4nGHhYTEUIRr4u3LSzQg/E=';
const K2 = Buffer.alloc(32, 7).toString('base64');
const raw = (key: string) => new Uint8Array(Buffer.from(key, 'base64'));

// serf-protocol §4.4: the captured list-keys response payload, and the failure of an unencrypted agent.
const capturedList = `08 84 a4${ascii('Keys')} 91 da002c ${ascii(K)} a7${ascii('Message')} a0 aa${ascii('PrimaryKey')} da002c ${ascii(K)} a6${ascii('Result')} c3`;
const capturedNoKeyring = `08 84 a4${ascii('Keys')} c0 a7${ascii('Message')} da0029 ${ascii('Keyring is empty (encryption not enabled)')} aa${ascii('PrimaryKey')} a0 a6${ascii('Result')} c2`;

/** A keyring as memberlist's, over base64 strings. */
function memoryKeyring(keys: string[]): SerfKeyring & { keys: string[] } {
  return {
    keys,
    list: () => [...keys],
    install(key) {
      const text = encodeBase64(key);
      if (!keys.includes(text)) keys.push(text);
    },
    use(key) {
      const text = encodeBase64(key);
      keys.splice(keys.indexOf(text), 1);
      keys.unshift(text);
    },
    remove(key) {
      const at = keys.indexOf(encodeBase64(key));
      if (at > 0) keys.splice(at, 1);
    },
  };
}

const always = () => true;

describe("Serf's key query payloads", () => {
  it('key requests: 32-byte keys as str16, list-keys as an empty raw string', () => {
    expect(hex(encodeKeyRequest(raw(K)))).toBe(`0781a34b6579da0020${hex(raw(K))}`);
    expect(hex(keyRequestPayload('list', undefined))).toBe('0781a34b6579a0');
    expect(decodeKeyRequest(encodeKeyRequest(raw(K)))).toEqual(raw(K));
    // Serf's handlers crash on an empty payload; ours refuse it.
    expect(decodeKeyRequest(new Uint8Array())).toBeUndefined();
    expect(decodeKeyRequest(Uint8Array.of(7))).toBeUndefined();
    expect(() => keyRequestPayload('install', '!!!!')).toThrow('illegal base64 data at input byte 0');
  });

  it('key responses byte for byte as captured, and read back', () => {
    expect(hex(encodeKeyResponse({ result: true, message: '', keys: [K], primaryKey: K }))).toBe(capturedList.replace(/\s+/g, ''));
    expect(hex(encodeKeyResponse({ result: false, message: 'Keyring is empty (encryption not enabled)', keys: [], primaryKey: '' }))).toBe(capturedNoKeyring.replace(/\s+/g, ''));
    expect(decodeKeyResponse(bytes(capturedList))).toEqual({ result: true, message: '', keys: [K], primaryKey: K });
    expect(decodeKeyResponse(Uint8Array.of(5, 0x80))).toBeUndefined();
    expect(decodeKeyResponse(bytes('08 84'))).toBeUndefined();
  });

  it('conflict responses: the Member as captured, or [6] nil', () => {
    const member = { name: 'b', address: '127.0.0.1:23091', tags: { role: 'web' }, status: 1, vsn: [1, 5, 2, 2, 5, 5] };
    const captured = `06 8b a4${ascii('Addr')} a4 7f000001 ab${ascii('DelegateCur')} 05 ab${ascii('DelegateMax')} 05 ab${ascii('DelegateMin')} 02 a4${ascii('Name')} a1${ascii('b')} a4${ascii('Port')} cd5a33 ab${ascii('ProtocolCur')} 02 ab${ascii('ProtocolMax')} 05 ab${ascii('ProtocolMin')} 01 a6${ascii('Status')} 01 a4${ascii('Tags')} 81 a4${ascii('role')} a3${ascii('web')}`;
    expect(hex(encodeConflictResponse(member))).toBe(captured.replace(/\s+/g, ''));
    expect(decodeConflictResponse(bytes(captured))).toEqual({ name: 'b', ip: Uint8Array.of(127, 0, 0, 1), port: 23091, status: 1 });
    expect(hex(encodeConflictResponse(undefined))).toBe('06c0');
  });

  it('base64 as Go StdEncoding', () => {
    for (const n of [0, 1, 2, 3, 16, 24, 32]) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff);
      expect(encodeBase64(data)).toBe(Buffer.from(data).toString('base64'));
      expect(decodeBase64(Buffer.from(data).toString('base64'))).toEqual(data);
    }
    expect(decodeBase64('ab=c')).toEqual({ illegalAt: 2 });
    expect(decodeBase64('abc')).toEqual({ illegalAt: 0 });
  });
});

describe('answering key queries (serf internal_query.go)', () => {
  it('install, use, remove change the keyring; refusals in memberlist wording', async () => {
    const keyring = memoryKeyring([K]);
    const answer = async (op: 'install' | 'use' | 'remove' | 'list', key?: string) =>
      (await answerKeyQuery(op, keyRequestPayload(op, key), keyring, always, 1024))!.response;
    expect(await answer('use', K2)).toEqual({ result: false, message: 'Requested key is not in the keyring', keys: [], primaryKey: '' });
    expect(await answer('install', K2)).toMatchObject({ result: true, message: '' });
    expect(await answer('remove', K)).toMatchObject({ result: false, message: 'Removing the primary key is not allowed' });
    expect(await answer('use', K2)).toMatchObject({ result: true });
    expect(await answer('list')).toEqual({ result: true, message: '', keys: [K2, K], primaryKey: K2 });
    expect(await answer('remove', K)).toMatchObject({ result: true });
    expect(keyring.keys).toEqual([K2]);
    expect(await answer('install', Buffer.alloc(8).toString('base64'))).toMatchObject({ result: false, message: 'key size must be 16, 24 or 32 bytes' });
    // A request that does not decode: Result false, no message.
    expect((await answerKeyQuery('install', Uint8Array.of(7), keyring, always, 1024))!.response).toEqual({ result: false, message: '', keys: [], primaryKey: '' });
  });

  it('without encryption every key query fails as Serf says', async () => {
    expect((await answerKeyQuery('list', keyRequestPayload('list', undefined), undefined, always, 1024))!.response.message).toBe('Keyring is empty (encryption not enabled)');
    expect((await answerKeyQuery('use', keyRequestPayload('use', K), undefined, always, 1024))!.response.message).toBe('No keyring to modify (encryption not enabled)');
  });

  it("a keyring's own failure (a keyring file that cannot be written) is the member's failure", async () => {
    const keyring = { ...memoryKeyring([K]), install: () => Promise.reject(new Error('disk full')) };
    expect((await answerKeyQuery('install', keyRequestPayload('install', K2), keyring, always, 1024))!.response).toMatchObject({ result: false, message: 'disk full' });
  });

  it('a long key list is cut to fit the response limit, with a message (serf keyListResponseWithCorrectSize)', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => Buffer.alloc(32, i).toString('base64'));
    const fits = (payload: Uint8Array) => encodeSerfQueryResponse({ ltime: 1, id: 1, from: 'n', ack: false, payload }).length <= 1024;
    const answer = (await answerKeyQuery('list', keyRequestPayload('list', undefined), memoryKeyring(keys), fits, 1024))!;
    const n = answer.response.keys.length;
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(30);
    expect(answer.response.message).toBe(`truncated key list response, showing first ${n} of 30 keys`);
    expect(fits(answer.payload)).toBe(true);
    // One more key would not have fit.
    expect(fits(encodeKeyResponse({ ...answer.response, keys: keys.slice(0, n + 1) }))).toBe(false);
  });
});

describe("collecting key answers (serf keymanager.go)", () => {
  function replies(list: Array<{ from: string; payload: Uint8Array }>, closed: { value: boolean }): KeyQueryReplies {
    return {
      close: () => void (closed.value = true),
      async *[Symbol.asyncIterator]() {
        yield { kind: 'ack' as const, from: 'x' };
        for (const reply of list) yield { kind: 'response' as const, ...reply };
      },
    };
  }
  const ok = encodeKeyResponse({ result: true, message: '', keys: [K], primaryKey: K });

  it('counts responses, keys and primaries; stops once every node answered', async () => {
    const closed = { value: false };
    const report = await collectKeyResponses('list', replies([{ from: 'a', payload: ok }, { from: 'b', payload: ok }, { from: 'c', payload: ok }], closed), 2);
    expect(report).toEqual({ op: 'list', numNodes: 2, numResp: 2, numErr: 0, messages: {}, keys: { [K]: 2 }, primaryKeys: { [K]: 2 } });
    expect(closed.value).toBe(true);
  });

  it('failures, bad payloads and missing answers give Serf errors', async () => {
    const failed = encodeKeyResponse({ result: false, message: 'disk full', keys: [], primaryKey: '' });
    const report = await collectKeyResponses('install', replies([{ from: 'a', payload: ok }, { from: 'b', payload: failed }, { from: 'c', payload: Uint8Array.of(5) }], { value: false }), 4);
    expect(report.numErr).toBe(2);
    expect(report.messages).toEqual({ b: 'disk full', c: 'Invalid key query response type' });
    expect(report.error).toBe('2/4 nodes reported failure');
    const silent = await collectKeyResponses('install', replies([{ from: 'a', payload: ok }], { value: false }), 2);
    expect(silent.error).toBe('1/2 nodes reported success');
  });

  it('a success with a message is kept and warned about', async () => {
    const warnings: string[] = [];
    const truncated = encodeKeyResponse({ result: true, message: 'truncated key list response, showing first 1 of 2 keys', keys: [K], primaryKey: K });
    const report = await collectKeyResponses('list', replies([{ from: 'a', payload: truncated }], { value: false }), 1, (m) => warnings.push(m));
    expect(report.error).toBeUndefined();
    expect(report.messages).toEqual({ a: 'truncated key list response, showing first 1 of 2 keys' });
    expect(warnings).toHaveLength(1);
  });
});
