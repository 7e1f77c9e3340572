import type { StreamResult } from '@swim/runtime';
import { describe, expect, it } from 'vitest';
import { formatKeyOpReport } from '../src/key-ops/format.js';
import { runKeyOp, type KeyOpReport, type KeyOpTarget, type KeyOpTransport } from '../src/key-ops/run.js';
import { keyOpsService } from '../src/key-ops/service.js';
import { generateKey, Keyring } from '../src/keyring.js';
import { KEY_OPS_SERVICE } from '../src/services.js';

const K1 = generateKey();
const K2 = generateKey();
const utf8 = (text: string) => new TextEncoder().encode(text);

/** How a fake peer answers a service request. */
type Peer = (service: number, body: Uint8Array, timeoutMs: number) => Promise<StreamResult>;

/** A peer running the real service over its own keyring (the stream arrived encrypted). */
function member(keyring: Keyring): Peer {
  return async (service, body) => {
    if (service !== KEY_OPS_SERVICE) return { ok: false, reason: `unknown service ${service}` };
    return { ok: true, bytes: await keyOpsService(keyring)({ from: 'me:1', body, encrypted: true }) };
  };
}

const answering = (bytes: Uint8Array | undefined): Peer => () => Promise.resolve({ ok: true, bytes });

interface Fake extends KeyOpTransport {
  readonly asked: string[];
  inFlight: number;
  maxInFlight: number;
}

function fakeTransport(peers: Record<string, Peer>, keyring: Keyring | 'no keyring' = Keyring.from([K1])): Fake {
  const fake: Fake = {
    address: 'me:1',
    keyring: keyring === 'no keyring' ? undefined : keyring,
    asked: [],
    inFlight: 0,
    maxInFlight: 0,
    async requestService(to, service, body, timeoutMs) {
      fake.asked.push(to);
      fake.inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
      try {
        const peer = peers[to];
        return peer === undefined ? { ok: false, reason: 'connection refused' } : await peer(service, body, timeoutMs);
      } finally {
        fake.inFlight--;
      }
    },
  } as Fake;
  return fake;
}

const target = (name: string): KeyOpTarget => ({ name, address: `${name}:1` });
const me: KeyOpTarget = { name: 'me', address: 'me:1' };

describe('runKeyOp', () => {
  it('asks every other target over the key-ops service, applies the op locally, and counts keys and primaries', async () => {
    const a = Keyring.from([K1]);
    const b = Keyring.from([K1]);
    const local = Keyring.from([K1]);
    const seen: Array<[number, number]> = [];
    const spy =
      (peer: Peer): Peer =>
      (service, body, timeoutMs) => {
        seen.push([service, timeoutMs]);
        return peer(service, body, timeoutMs);
      };
    const transport = fakeTransport({ 'a:1': spy(member(a)), 'b:1': spy(member(b)) }, local);
    const report = await runKeyOp(transport, [me, target('a'), target('b')], { op: 'install', key: K2 }, { timeoutMs: 750 });
    expect(report).toEqual<KeyOpReport>({
      op: 'install',
      members: 3,
      answered: 3,
      succeeded: 3,
      failures: [],
      keys: { [K1]: 3, [K2]: 3 },
      primaries: { [K1]: 3 },
    });
    expect(transport.asked.sort()).toEqual(['a:1', 'b:1']);
    expect(seen).toEqual([
      [KEY_OPS_SERVICE, 750],
      [KEY_OPS_SERVICE, 750],
    ]);
    for (const keyring of [a, b, local]) expect(keyring.list()).toEqual([K1, K2]);
  });

  it('reports refusals by name and still counts what the refusing members hold', async () => {
    const transport = fakeTransport({ 'a:1': member(Keyring.from([K1, K2])), 'b:1': member(Keyring.from([K1])) }, Keyring.from([K1, K2]));
    const report = await runKeyOp(transport, [me, target('a'), target('b')], { op: 'use', key: K2 });
    expect(report).toMatchObject({ answered: 3, succeeded: 2, keys: { [K1]: 3, [K2]: 2 }, primaries: { [K2]: 2, [K1]: 1 } });
    expect(report.failures).toEqual([{ name: 'b', error: expect.stringMatching(/not installed/) as string }]);
  });

  it('a remove of the primary is refused on every member, the local one included', async () => {
    const transport = fakeTransport({ 'a:1': member(Keyring.from([K1, K2])) }, Keyring.from([K1, K2]));
    const report = await runKeyOp(transport, [me, target('a')], { op: 'remove', key: K1 });
    expect(report.succeeded).toBe(0);
    expect(report.failures.map((f) => f.name)).toEqual(['me', 'a']);
    for (const failure of report.failures) expect(failure.error).toMatch(/removing the primary key is not allowed/);
    expect(report.keys).toEqual({ [K1]: 2, [K2]: 2 });
  });

  it('lists as "no answer" a target that times out, refuses the stream, rejects, throws or closes without a reply', async () => {
    const transport = fakeTransport({
      'timeout:1': () => Promise.resolve({ ok: false, reason: 'timeout after 100 ms' }),
      'rejects:1': () => Promise.reject(new Error('socket hang up')),
      'throws:1': () => {
        throw new Error('synchronously');
      },
      'closes:1': answering(undefined),
      'ok:1': member(Keyring.from([K1])),
    });
    const targets = ['timeout', 'refused', 'rejects', 'throws', 'closes', 'ok'].map(target);
    const report = await runKeyOp(transport, targets, { op: 'list' }, { timeoutMs: 100 });
    expect(report).toMatchObject({ members: 6, answered: 1, succeeded: 1, keys: { [K1]: 1 } });
    expect(report.failures).toEqual([
      { name: 'timeout', error: 'no answer (timeout after 100 ms)' },
      { name: 'refused', error: 'no answer (connection refused)' },
      { name: 'rejects', error: 'no answer (request failed: socket hang up)' },
      { name: 'throws', error: 'no answer (request failed: synchronously)' },
      { name: 'closes', error: 'no answer (closed without a reply)' },
    ]);
  });

  it('a transport that never settles a request cannot hang the report', async () => {
    const transport = fakeTransport({ 'hang:1': () => new Promise<StreamResult>(() => {}) });
    const report = await runKeyOp(transport, [me, target('hang')], { op: 'list' }, { timeoutMs: 20 });
    expect(report.failures).toEqual([{ name: 'hang', error: 'no answer (no reply within 1020 ms)' }]);
    expect(report.answered).toBe(1);
  });

  it.each<[string, Uint8Array, RegExp]>([
    ['wrong shape', utf8(JSON.stringify({ ok: true, keys: 'all of them', primary: K1 })), /^invalid reply: keys must be an array/],
    ['huge', utf8(`{"ok":true,"keys":["${K1}"],"primary":"${K1}","x":"${'x'.repeat(70_000)}"}`), /^invalid reply: reply of \d+ bytes, at most 65536 allowed/],
    ['invalid JSON', utf8('{"ok":tru'), /^invalid reply: not JSON$/],
    ['a repeated key to inflate the counts', utf8(JSON.stringify({ ok: true, keys: [K2, K2, K2], primary: K2 })), /^invalid reply: keys\[1\] repeats/],
    ['binary garbage', new Uint8Array([0xff, 0x00, 0x13, 0x37]), /^invalid reply: not UTF-8$/],
  ])('a hostile reply (%s) is a failure and counts no keys', async (_name, bytes, error) => {
    const transport = fakeTransport({ 'evil:1': answering(bytes), 'a:1': member(Keyring.from([K1])) });
    const report = await runKeyOp(transport, [me, target('a'), target('evil')], { op: 'list' });
    expect(report).toMatchObject({ members: 3, answered: 3, succeeded: 2, keys: { [K1]: 2 }, primaries: { [K1]: 2 } });
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]?.name).toBe('evil');
    expect(report.failures[0]?.error).toMatch(error);
  });

  it('asks at most `concurrency` targets at once (32 by default) and every target exactly once', async () => {
    const peers: Record<string, Peer> = {};
    const targets: KeyOpTarget[] = [];
    for (let i = 0; i < 100; i++) {
      const keyring = Keyring.from([K1]);
      const answer = member(keyring);
      // Some answer at once, some after a few turns of the event loop.
      peers[`m${i}:1`] = async (service, body, timeoutMs) => {
        for (let turn = 0; turn < i % 7; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
        return answer(service, body, timeoutMs);
      };
      targets.push(target(`m${i}`));
    }
    const bounded = fakeTransport(peers);
    const report = await runKeyOp(bounded, targets, { op: 'list' }, { concurrency: 5 });
    expect(report).toMatchObject({ members: 100, answered: 100, succeeded: 100, keys: { [K1]: 100 } });
    expect(bounded.maxInFlight).toBe(5);
    expect(new Set(bounded.asked).size).toBe(100);
    expect(bounded.asked).toHaveLength(100);

    const byDefault = fakeTransport(peers);
    await runKeyOp(byDefault, targets, { op: 'list' });
    expect(byDefault.maxInFlight).toBe(32);
  });

  it('the local member without a keyring is a failure, not a crash', async () => {
    const transport = fakeTransport({ 'a:1': member(Keyring.from([K1])) }, 'no keyring');
    const report = await runKeyOp(transport, [me, target('a')], { op: 'list' });
    expect(report).toMatchObject({ members: 2, answered: 1, succeeded: 1, failures: [{ name: 'me', error: 'this member has no keyring' }] });
  });

  it('an abort stops asking and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('operator pressed ctrl-c');
    const peers: Record<string, Peer> = {
      'slow:1': () => new Promise<StreamResult>(() => {}),
    };
    const transport = fakeTransport(peers);
    const targets = [target('slow'), ...Array.from({ length: 10 }, (_, i) => target(`later${i}`))];
    const running = runKeyOp(transport, targets, { op: 'list' }, { concurrency: 1, signal: controller.signal });
    await until(() => transport.asked.length === 1);
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(transport.asked).toEqual(['slow:1']);
    await expect(runKeyOp(transport, targets, { op: 'list' }, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('invalid input is refused before anyone is asked, listing every problem', async () => {
    const transport = fakeTransport({});
    const error = await runKeyOp(transport, [target('a'), target('a'), { name: '', address: 'x:1' }], { op: 'use', key: 'short' }, { timeoutMs: 0, concurrency: 1.5 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RangeError);
    const message = (error as Error).message;
    expect(message).toMatch(/6 problems/);
    expect(message).toMatch(/op: key: key is not base64|op: key: key is \d+ bytes/);
    expect(message).toMatch(/targets\[1\]: name "a" appears twice/);
    expect(message).toMatch(/targets\[1\]: address "a:1" appears twice/);
    expect(message).toMatch(/targets\[2\]\.name must be a non-empty string/);
    expect(message).toMatch(/timeoutMs must be a positive number, got 0/);
    expect(message).toMatch(/concurrency must be a positive integer, got 1.5/);
    expect(transport.asked).toEqual([]);
  });

  it('no targets: 0 of 0', async () => {
    expect(await runKeyOp(fakeTransport({}), [], { op: 'list' })).toEqual({ op: 'list', members: 0, answered: 0, succeeded: 0, failures: [], keys: {}, primaries: {} });
  });
});

describe('formatKeyOpReport', () => {
  it('renders the counts, one line per key (primary first) and the failures', () => {
    const text = formatKeyOpReport({
      op: 'list',
      members: 3,
      answered: 2,
      succeeded: 2,
      failures: [{ name: 'node-c', error: 'no answer (timeout)' }],
      keys: { [K2]: 1, [K1]: 2 },
      primaries: { [K1]: 2 },
    });
    expect(text.split('\n')).toEqual([`2 of 3 members answered, 2 succeeded`, `${K1}  [2/3] (primary on 2)`, `${K2}  [1/3]`, `  node-c: no answer (timeout)`]);
  });

  it('escapes terminal control and bidirectional characters in names and errors from the cluster', () => {
    const text = formatKeyOpReport({
      op: 'list',
      members: 1,
      answered: 1,
      succeeded: 0,
      failures: [{ name: 'evil\u001b[2J', error: 'x\u202eyz\nfake line' }],
      keys: {},
      primaries: {},
    });
    expect(text.split('\n')).toEqual(['1 of 1 member answered, 0 succeeded', '  evil\\u001b[2J: x\\u202eyz\\u000afake line']);
  });
});

async function until(predicate: () => boolean, limitMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > limitMs) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
