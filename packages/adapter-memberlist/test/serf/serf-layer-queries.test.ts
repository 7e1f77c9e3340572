// Serf's queries through SerfLayer in the deterministic simulator: every member speaks
// memberlist's wire, so queries, acks, responses and relays travel as Serf's user messages.
import { Simulation } from '@swim/transport-memory';
import { describe, expect, it } from 'vitest';
import { encodeBase64 } from '../../src/serf/base64.js';
import { decodeConflictResponse, decodeKeyResponse } from '../../src/serf/serf-internal-messages.js';
import { encodeSerfQuery, encodeSerfQueryResponse, encodeSerfRelay } from '../../src/serf/serf-query-messages.js';
import { encodeTags, memberlistCodec, SerfLayer, type SerfKeyring } from '../../src/index.js';

const N = 6;
const K = encodeBase64(new Uint8Array(32).fill(1));
const K2 = encodeBase64(new Uint8Array(32).fill(2));

function memoryKeyring(keys: string[]): SerfKeyring & { keys: string[] } {
  const b64 = (key: Uint8Array) => encodeBase64(key);
  return {
    keys,
    list: () => [...keys],
    install: (key) => void (keys.includes(b64(key)) || keys.push(b64(key))),
    use: (key) => void keys.unshift(...keys.splice(keys.indexOf(b64(key)), 1)),
    remove: (key) => void (keys.indexOf(b64(key)) > 0 && keys.splice(keys.indexOf(b64(key)), 1)),
  };
}

function cluster(seed: number, keyrings?: Map<string, SerfKeyring & { keys: string[] }>) {
  const sim = new Simulation({ seed, addresses: 'ip', codec: () => memberlistCodec() });
  const members = Array.from({ length: N }, (_, i) => sim.addMember(`n${i}`, { meta: encodeTags({ role: i % 2 === 0 ? 'web' : 'db' }) }));
  for (let i = 1; i < N; i++) sim.join(`n${i}`, ['n0']);
  const layers = new Map(members.map((member) => [member.name, new SerfLayer(member, { clock: sim.clock, ...(keyrings === undefined ? {} : { keyring: keyrings.get(member.name)! }) })]));
  sim.runUntil(() => sim.converged(), 30_000);
  return { sim, members, layers };
}

async function runFor(sim: Simulation, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    sim.runFor(50);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("Serf's queries through SerfLayer (simulated memberlist-wire cluster)", () => {
  it.each([1, 2])('a query is acked and answered by every member exactly once, the asker included (seed %i)', async (seed) => {
    const { sim, members, layers } = cluster(seed);
    for (const member of members) member.handleQuery('greet', (q) => `hello ${text(q.payload)} from ${member.name}`);
    const handle = members[0]!.query('greet', new TextEncoder().encode('x'), { requestAck: true, timeoutMs: 3_000 });
    const done = handle.finished;
    await runFor(sim, 3_500);
    const summary = await done;
    expect(summary.acks.sort(), `seed ${seed}`).toEqual(members.map((m) => m.name).sort());
    expect([...summary.responses].map(([from, p]) => [from, text(p)]).sort(), `seed ${seed}`).toEqual(members.map((m) => [m.name, `hello x from ${m.name}`]).sort());
    expect(layers.get('n1')!.counters.queries, 'the query service, not the layer, read the queries').toBe(0);
    const received = members.slice(1).map((m) => m.queries.counters);
    expect(received.every((c) => c.accepted === 1), `seed ${seed}: each accepted it once`).toBe(true);
    expect(received.some((c) => c.duplicate > 0), `seed ${seed}: Serf-style rebroadcast brought copies`).toBe(true);
  });

  it('node and tag filters reach exactly the members named', async () => {
    const { sim, members } = cluster(3);
    const asked = (options: Parameters<(typeof members)[0]['query']>[2]) => {
      const handle = members[0]!.query('who', undefined, { requestAck: true, timeoutMs: 2_000, ...options });
      return handle.finished;
    };
    const byNode = asked({ filterNodes: ['n2', 'n4'] });
    const byTag = asked({ filterTags: { role: '^db$' } });
    await runFor(sim, 2_500);
    expect((await byNode).acks.sort()).toEqual(['n2', 'n4']);
    expect((await byTag).acks.sort()).toEqual(['n1', 'n3', 'n5']);
  });

  it('relay factor 1: every ack also comes through a relay, and is counted once', async () => {
    const { sim, members } = cluster(4);
    const handle = members[0]!.query('relayed', undefined, { requestAck: true, relayFactor: 1, timeoutMs: 2_000 });
    await runFor(sim, 2_500);
    const summary = await handle.finished;
    expect(summary.acks.sort()).toEqual(members.map((m) => m.name).sort());
    const relayed = members.reduce((n, m) => n + m.queries.counters.relaysForwarded, 0);
    expect(relayed).toBeGreaterThanOrEqual(N - 1);
    expect(summary.totals).toMatchObject({ acks: N });
  });

  it('key commands rotate every keyring: install, use, remove; 6/6 each, list counts keys', async () => {
    const keyrings = new Map(Array.from({ length: N }, (_, i) => [`n${i}`, memoryKeyring([K])]));
    const { sim, layers } = cluster(5, keyrings);
    const n3 = layers.get('n3')!;
    const run = async (op: 'install' | 'use' | 'remove' | 'list', key?: string) => {
      const report = n3.keyCommand(op, key);
      await runFor(sim, 500);
      return report;
    };
    expect(await run('install', K2)).toMatchObject({ numNodes: N, numResp: N, numErr: 0 });
    expect(await run('list')).toMatchObject({ numResp: N, keys: { [K]: N, [K2]: N }, primaryKeys: { [K]: N } });
    expect(await run('remove', K)).toMatchObject({ numErr: N, error: `${N}/${N} nodes reported failure`, messages: { n0: 'Removing the primary key is not allowed' } });
    expect(await run('use', K2)).toMatchObject({ numResp: N, numErr: 0 });
    expect((await run('remove', K)).error).toBeUndefined();
    for (const keyring of keyrings.values()) expect(keyring.keys).toEqual([K2]);
  });

  it('key commands without a keyring: every member reports encryption is not enabled', async () => {
    const { sim, layers } = cluster(6);
    const report = layers.get('n0')!.keyCommand('list');
    await runFor(sim, 500);
    expect(await report).toMatchObject({ numNodes: N, numResp: N, numErr: N, error: `${N}/${N} nodes reported failure`, messages: { n5: 'Keyring is empty (encryption not enabled)' } });
    await expect(layers.get('n0')!.keyCommand('install', 'not base64!')).rejects.toThrow(/illegal base64 data at input byte/);
  });

  it('_serf_ping is acked; _serf_conflict is answered with the member we hold, not by the member itself', async () => {
    const { sim, members, layers } = cluster(7);
    const ping = members[0]!.queries.queryInternal('_serf_ping', undefined, { requestAck: true, timeoutMs: 2_000 });
    const conflict = members[0]!.queries.queryInternal('_serf_conflict', new TextEncoder().encode('n2'), { timeoutMs: 2_000 });
    await runFor(sim, 2_500);
    expect((await ping.finished).acks).toHaveLength(N);
    const answers = (await conflict.finished).responses;
    expect([...answers.keys()].sort()).toEqual(['n0', 'n1', 'n3', 'n4', 'n5']);
    expect(decodeConflictResponse(answers.get('n1')!)).toMatchObject({ name: 'n2', status: 1 });
    expect(layers.get('n2')!.counters.internalQueries).toBe(2);
    // Internal queries never reach the application.
    const seen: string[] = [];
    members[1]!.on('query', (q) => seen.push(q.name));
    members[0]!.queries.queryInternal('_serf_ping');
    await runFor(sim, 500);
    expect(seen).toEqual([]);
  });

  it('hostile traffic: forged relays to non-members refused, malformed and huge messages counted and dropped', async () => {
    const { sim, members } = cluster(8);
    const [n0, n1] = [members[0]!, members[1]!];
    const inner = encodeSerfQueryResponse({ ltime: 1, id: 1, from: 'n0', ack: true, payload: new Uint8Array() });
    // A relay to an address no member has, and to a member's name at another address.
    const intercept = (bytes: Uint8Array) => n1.queries.intercept(bytes, undefined);
    expect(intercept(encodeSerfRelay(inner, { name: 'victim', address: '192.0.2.1:9' }))).toBe(true);
    expect(intercept(encodeSerfRelay(inner, { name: 'n2', address: '192.0.2.1:9' }))).toBe(true);
    expect(n1.queries.counters.relaysRefused).toBe(2);
    expect(n1.queries.counters.relaysForwarded).toBe(0);
    // A query whose asker is not a member at that address: no ack is sent anywhere.
    const forged = encodeSerfQuery({ name: 'x', payload: new Uint8Array(), filters: [], requestAck: true, noBroadcast: true, id: 7, ltime: 3, timeoutMs: 1000, relayFactor: 0, sourceName: 'n0', sourceAddress: '192.0.2.1:9' });
    expect(intercept(forged)).toBe(true);
    expect(n1.queries.counters.dropped['unknown-asker']).toBe(1);
    // Malformed and huge query traffic.
    expect(intercept(Uint8Array.of(4, 0x85))).toBe(true);
    expect(intercept(encodeSerfQuery({ name: 'big', payload: new Uint8Array(70_000), filters: [], requestAck: false, noBroadcast: true, id: 8, ltime: 4, timeoutMs: 1000, relayFactor: 0, sourceName: 'n0', sourceAddress: n0.address }))).toBe(true);
    expect(n1.queries.counters.malformed).toBe(2);
    await runFor(sim, 200);
    expect(n1.queries.counters.acksSent).toBe(0);
  });

  it("an application message that reads as a Serf query is refused; Serf's other messages still pass", () => {
    const { members } = cluster(9);
    expect(() => members[0]!.broadcast('app', encodeSerfQuery({ name: 'x', payload: new Uint8Array(), filters: [], requestAck: false, noBroadcast: false, id: 1, ltime: 1, timeoutMs: 1, relayFactor: 0, sourceName: 'n0', sourceAddress: members[0]!.address }))).toThrow(RangeError);
    expect(() => members[0]!.send('n1', new TextEncoder().encode('plain'))).not.toThrow();
  });

  it('the key list answer is a Serf key response', () => {
    expect(decodeKeyResponse(Uint8Array.of(8, 0x80))).toEqual({ result: false, message: '', keys: [], primaryKey: '' });
  });

  it("one query clock: Serf's push-pull QueryLTime moves the query service's clock, and our next query is stamped past it", async () => {
    const { sim, members, layers } = cluster(10);
    // Serf's push-pull user state: [2]{LTime: 1, EventLTime: 1, QueryLTime: 500} (serf messagePushPull).
    const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
    // Every other member carries it: n0's next push-pull, whichever peer it is with, brings it.
    const state = Uint8Array.from([2, 0x83, 0xa5, ...ascii('LTime'), 1, 0xaa, ...ascii('EventLTime'), 1, 0xaa, ...ascii('QueryLTime'), 0xcd, 0x01, 0xf4]);
    for (const member of members.slice(1)) member.setUserState(state);
    const before = members[0]!.queries.clock.time();
    expect(before).toBeLessThan(500);
    await runFor(sim, 2 * members[0]!.config.pushPullIntervalMs + 1_000);
    expect(members[0]!.queries.clock.time(), 'witnessed through a push-pull').toBeGreaterThan(500);
    expect(layers.get('n0')!.clocks.queryClock).toBe(members[0]!.queries.clock.time());
    const handle = members[0]!.query('after', undefined, { timeoutMs: 500 });
    expect(handle.ltime).toBeGreaterThan(500);
    await runFor(sim, 600);
    // n2 witnessed our query's time from the query itself.
    expect(members[2]!.queries.clock.time()).toBeGreaterThan(handle.ltime);
  });
});
