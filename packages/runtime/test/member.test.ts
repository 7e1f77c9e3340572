import { afterEach, describe, expect, it } from 'vitest';
import { JoinError, Member, type MembershipChange } from '../src/index.js';
import { SEED, world, type World } from './world.js';

describe.each(['virtual', 'real'] as const)('Member over the memory transport (%s time)', (mode) => {
  let w: World;
  const make = () => (w = world(mode));
  const at = `${mode} time, seed ${SEED}`;

  afterEach(async () => {
    await w.close();
  });

  /** a and b, joined and seeing each other. */
  async function pair(): Promise<[Member, Member]> {
    const a = w.add('a');
    const b = w.add('b');
    await w.settle(b.join([a.address]));
    await w.until(() => a.member('b')?.state === 'alive' && b.member('a')?.state === 'alive');
    return [a, b];
  }

  it('join resolves with the seeds it contacted, and both sides see each other', async () => {
    make();
    const a = w.add('a');
    const b = w.add('b');
    const result = await w.settle(b.join([a.address]));
    expect(result, at).toEqual({ contacted: [a.address], failed: [] });
    await w.until(() => a.member('b')?.state === 'alive');
    expect(b.members().map((m) => m.name).sort(), at).toEqual(['a', 'b']);
  });

  it('nextReconnect says when the next reconnect tick is due, in ms from now; undefined when reconnects are off', async () => {
    make();
    const a = w.add('a', { reconnectIntervalMs: 5000 });
    const next = a.nextReconnect();
    expect(next, at).toBeDefined();
    expect(next!.inMs, at).toBeGreaterThanOrEqual(0);
    expect(next!.inMs, at).toBeLessThanOrEqual(5000);
    expect(next!.candidates, at).toBe(0);
    expect(w.add('b', { reconnectIntervalMs: 0 }).nextReconnect(), at).toBeUndefined();
  });

  it('join through only a bad seed rejects with a JoinError naming it', async () => {
    make();
    const b = w.add('b');
    const outcome = await w.settle(b.join(['nobody-home']).then(() => undefined, (error: unknown) => error));
    expect(outcome, at).toBeInstanceOf(JoinError);
    const error = outcome as JoinError;
    expect(error.result.contacted, at).toEqual([]);
    expect(error.result.failed.map((f) => f.address), at).toEqual(['nobody-home']);
    expect(error.message, at).toMatch(/nobody-home/);
  });

  it('join with an already aborted signal rejects with the abort reason', async () => {
    make();
    const a = w.add('a');
    const b = w.add('b');
    const reason = new Error('changed my mind');
    await expect(b.join([a.address], { signal: AbortSignal.abort(reason) }), at).rejects.toBe(reason);
  });

  it("dispatches 'join' as a CustomEvent with typed detail; on() returns an unsubscribe", async () => {
    make();
    const a = w.add('a');
    const seen: Event[] = [];
    a.addEventListener('join', (event) => seen.push(event));
    const viaOn: string[] = [];
    const unsubscribe = a.on('join', (detail) => viaOn.push(`${detail.event}:${detail.member.name}`));
    const b = w.add('b');
    await w.settle(b.join([a.address]));
    await w.until(() => viaOn.length > 0);
    expect(seen[0], at).toBeInstanceOf(CustomEvent);
    const detail = (seen[0] as CustomEvent<MembershipChange>).detail;
    expect([detail.event, detail.member.name, detail.member.state, detail.previous], at).toEqual(['join', 'b', 'alive', undefined]);
    expect(viaOn, at).toEqual(['join:b']);
    unsubscribe();
    const c = w.add('c');
    await w.settle(c.join([a.address]));
    await w.until(() => seen.length === 2);
    expect(viaOn, `${at}: no call after unsubscribe`).toEqual(['join:b']);
  });

  it("dispatches 'dead' with its cause when a peer stops without leaving", async () => {
    make();
    const [a, b] = await pair();
    const c = w.add('c');
    await w.settle(c.join([a.address]));
    await w.until(() => a.member('c')?.state === 'alive' && b.member('c')?.state === 'alive');
    const deaths: MembershipChange[] = [];
    a.on('dead', (detail) => deaths.push(detail));
    await c.close();
    await w.until(() => deaths.length > 0, 10_000);
    expect(deaths[0]!.member.name, at).toBe('c');
    expect(['timeout', 'gossip'], at).toContain(deaths[0]!.cause?.kind);
  });

  it("preload() holds peers alive with a 'join' event each; a preloaded peer that is not there is then found dead", async () => {
    make();
    const [a, b] = await pair();
    const joined: string[] = [];
    a.on('join', (change) => joined.push(change.member.name));
    a.preload([
      { name: 'b', address: b.address, incarnation: 99 },
      { name: 'ghost', address: 'ghost:1', incarnation: 0 },
    ]);
    expect(joined, at).toEqual(['ghost']);
    expect(a.member('ghost')?.state, at).toBe('alive');
    expect(a.member('b')?.incarnation, `${at}: a name already held is kept as it is`).not.toBe(99);
    // Nobody answers at ghost:1: probed like any member, suspected and declared dead.
    await w.until(() => a.member('ghost')?.state === 'dead', 20_000);
    expect(() => a.preload([{ name: '', address: 'x:1', incarnation: 0 }]), at).toThrow(RangeError);
    expect(a.members().map((m) => m.name).sort(), at).toEqual(['a', 'b']);
  });

  it("leave() resolves { spread: true } when others exist, and they see 'left'", async () => {
    make();
    const [a, b] = await pair();
    const left: string[] = [];
    a.on('left', (detail) => left.push(detail.member.name));
    const result = await w.settle(b.leave());
    expect(result, at).toEqual({ spread: true });
    await w.until(() => left.includes('b'));
    expect(a.member('b')?.state, at).toBe('left');
  });

  it('leave() alone resolves at once: nobody is there to hear it', async () => {
    make();
    const a = w.add('a');
    await expect(w.settle(a.leave()), at).resolves.toEqual({ spread: true });
  });

  it('changes() yields membership changes and ends when its signal aborts', async () => {
    make();
    const a = w.add('a');
    const controller = new AbortController();
    const iterator = a.changes({ signal: controller.signal });
    const b = w.add('b');
    await w.settle(b.join([a.address]));
    const first = await w.settle(iterator.next());
    expect(first.done, at).toBe(false);
    expect(first.done === false && [first.value.event, first.value.member.name], at).toEqual(['join', 'b']);
    const pending = iterator.next();
    controller.abort();
    expect(await pending, at).toEqual({ value: undefined, done: true });
    expect(await iterator.next(), at).toEqual({ value: undefined, done: true });
  });

  it('changes() ends when the member closes, and for-await stops', async () => {
    make();
    const [a] = await pair();
    const names: string[] = [];
    const consumed = (async () => {
      for await (const change of a.changes()) names.push(change.member.name);
    })();
    // The loop already waits in next(): close must end it.
    await a.close();
    await w.settle(consumed);
    expect(names, at).toEqual([]);
  });

  it('refuses a maxPacketBytes above what the transport carries, and defaults to the transport\'s', () => {
    make();
    expect(w.add('a').config.maxPacketBytes, at).toBe(w.network.maxPacketBytes);
    expect(() => w.add('b', { maxPacketBytes: w.network.maxPacketBytes + 1 })).toThrow(
      `config.maxPacketBytes ${w.network.maxPacketBytes + 1} is more than the transport carries (${w.network.maxPacketBytes})`,
    );
    expect(w.add('c', { maxPacketBytes: w.network.maxPacketBytes - 100 }).config.maxPacketBytes, at).toBe(w.network.maxPacketBytes - 100);
  });

  it('close() is idempotent, Symbol.asyncDispose calls it, and methods afterwards throw', async () => {
    make();
    const [a, b] = await pair();
    const first = a.close();
    expect(a.close(), at).toBe(first);
    await first;
    const b2 = b as Member & { [Symbol.asyncDispose](): Promise<void> };
    await b2[Symbol.asyncDispose]();
    expect(b.close(), `${at}: asyncDispose closed it`).toBe(b2[Symbol.asyncDispose]());
    for (const member of [a, b]) {
      expect(() => member.join(['x']), at).toThrow(/closed/);
      expect(() => member.leave(), at).toThrow(/closed/);
      expect(() => member.broadcast('k', new Uint8Array(1)), at).toThrow(/closed/);
      expect(() => member.send('a', new Uint8Array(1)), at).toThrow(/closed/);
      expect(() => member.updateMeta(new Uint8Array(1)), at).toThrow(/closed/);
      expect(() => member.setUserState(new Uint8Array(1)), at).toThrow(/closed/);
    }
    expect(await a.changes().next(), `${at}: a closed member's iterator is already done`).toEqual({ value: undefined, done: true });
  });
});
