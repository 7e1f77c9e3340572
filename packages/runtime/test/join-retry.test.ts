import { afterEach, describe, expect, it } from 'vitest';
import { JoinError, Member, NameConflictError, type Clock, type MembershipChange, type RetryNotice, type Transport } from '../src/index.js';
import { VirtualClock } from '../../transport-memory/src/index.js';
import { FAST, SEED, world, type World } from './world.js';
import { MAX_ADDRESSES_PER_SEED } from '../src/join-retry.js';

/** `transport` with a resolver, recording every address it is asked to dial. */
function resolving(transport: Transport, resolve: (address: string) => Promise<readonly string[]>, dialled: string[] = []): Transport {
  return {
    get address() {
      return transport.address;
    },
    maxPacketBytes: transport.maxPacketBytes,
    supportsStreams: transport.supportsStreams,
    listen: (handlers) => transport.listen(handlers),
    sendPacket: (to, bytes) => transport.sendPacket(to, bytes),
    request: (to, bytes, options, done) => {
      dialled.push(to);
      transport.request(to, bytes, options, done);
    },
    close: () => transport.close(),
    resolve,
  };
}

/** What a promise settled with, without letting a rejection go unhandled. */
function outcome<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe.each(['virtual', 'real'] as const)('join with retry and resolution (%s time)', (mode) => {
  let w: World;
  const make = () => (w = world(mode));
  const at = `${mode} time, seed ${SEED}`;

  afterEach(async () => {
    await w.close();
  });

  it('retries until the seed appears, then joins; each failed attempt is reported', async () => {
    make();
    const b = w.add('b');
    const notices: RetryNotice[] = [];
    const joining = outcome(b.join(['a'], { retry: { intervalMs: 150, max: 0, onRetry: (n) => notices.push(n) } }));
    await w.until(() => notices.length >= 2);
    expect(joining.settled, at).toBe(false);
    const a = w.add('a');
    await w.until(() => joining.settled);
    expect(joining.error, at).toBeUndefined();
    expect(joining.value, at).toEqual({ contacted: ['a'], failed: [] });
    await w.until(() => a.member('b')?.state === 'alive' && b.member('a')?.state === 'alive');
    expect(notices.slice(0, 2).map((n) => [n.attempt, n.retryInMs, n.error instanceof JoinError]), at).toEqual([
      [1, 150, true],
      [2, 150, true],
    ]);
    expect(notices[0]!.error.result.failed.map((f) => f.address), at).toEqual(['a']);
  });

  it('gives up after max attempts with a JoinError counting them', async () => {
    make();
    const b = w.add('b');
    const notices: RetryNotice[] = [];
    const error = await w.settle(b.join(['nobody-home'], { retry: { intervalMs: 100, max: 3, onRetry: (n) => notices.push(n) } }).then(() => undefined, (e: unknown) => e));
    expect(error, at).toBeInstanceOf(JoinError);
    expect((error as JoinError).attempts, at).toBe(3);
    expect((error as JoinError).message, at).toMatch(/^could not join through any seed \(3 attempts\): nobody-home \(/);
    expect(notices.map((n) => n.attempt), at).toEqual([1, 2]);
  });

  it('without retry makes one attempt, as before', async () => {
    make();
    let resolved = 0;
    const b = w.add('b', {}, { wrap: (t) => resolving(t, async (address) => (resolved++, [address])) });
    const error = await w.settle(b.join(['nobody-home']).then(() => undefined, (e: unknown) => e));
    expect(error, at).toBeInstanceOf(JoinError);
    expect((error as JoinError).attempts, at).toBe(1);
    expect(resolved, at).toBe(1);
  });

  it('an abort while waiting to retry rejects with its reason and stops the attempts', async () => {
    make();
    let resolved = 0;
    const b = w.add('b', {}, { wrap: (t) => resolving(t, async (address) => (resolved++, [address])) });
    const controller = new AbortController();
    const reason = new Error('operator gave up');
    const joining = outcome(b.join(['nobody-home'], { signal: controller.signal, retry: { intervalMs: 200, max: 0, onRetry: () => controller.abort(reason) } }));
    await w.until(() => joining.settled);
    expect(joining.error, at).toBe(reason);
    // Another interval later there was no second attempt.
    const start = w.clock.now();
    await w.until(() => w.clock.now() - start > 500);
    expect(resolved, at).toBe(1);
  });

  it('an abort while waiting to retry cancels the wait: no timer of the join stays armed', async () => {
    make();
    // The member's clock, noting which of its timers are armed; the first is the member's own tick.
    const armed = new Set<number>();
    let created = 0;
    const clock: Clock = {
      now: () => w.clock.now(),
      timer(callback) {
        const id = created++;
        const inner = w.clock.timer(() => {
          armed.delete(id);
          callback();
        });
        return {
          arm: (at) => (armed.add(id), inner.arm(at)),
          cancel: () => (armed.delete(id), inner.cancel()),
        };
      },
    };
    const b = new Member({ name: 'b', transport: w.network.transport('b'), clock, seed: SEED, config: FAST });
    try {
      const controller = new AbortController();
      const joining = outcome(b.join(['nobody-home'], { signal: controller.signal, retry: { intervalMs: 60_000, max: 0, onRetry: () => queueMicrotask(() => controller.abort()) } }));
      await w.until(() => joining.settled);
      expect(joining.error, at).toBeInstanceOf(DOMException);
      expect(created, at).toBeGreaterThan(1);
      expect([...armed].filter((id) => id !== 0), at).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('resolves every seed at every attempt and tries every address found', async () => {
    make();
    const dialled: string[] = [];
    const asked: string[] = [];
    let attempt = 0;
    // The name points nowhere at first; from the third attempt on it also points at a.
    const b = w.add('b', {}, {
      wrap: (t) =>
        resolving(
          t,
          async (address) => {
            asked.push(address);
            if (address === 'svc:1') attempt++;
            return address === 'svc:1' ? (attempt < 3 ? ['gone-1', 'gone-2'] : ['gone-1', 'a', 'gone-2']) : [address];
          },
          dialled,
        ),
    });
    w.add('a');
    const result = await w.settle(b.join(['svc:1', 'also-gone'], { retry: { intervalMs: 100, max: 5 } }));
    expect(asked, at).toEqual(['svc:1', 'also-gone', 'svc:1', 'also-gone', 'svc:1', 'also-gone']);
    expect(result.contacted, at).toEqual(['a']);
    expect(result.failed.map((f) => f.address).sort(), at).toEqual(['also-gone', 'gone-1', 'gone-2']);
    const joinsTo = (address: string) => dialled.filter((to) => to === address).length;
    expect([joinsTo('gone-1'), joinsTo('gone-2'), joinsTo('also-gone')], at).toEqual([3, 3, 3]);
    expect(joinsTo('a'), at).toBeGreaterThanOrEqual(1);
  });

  it('a seed that does not resolve is reported, the others are still tried', async () => {
    make();
    const b = w.add('b', {}, {
      wrap: (t) =>
        resolving(t, async (address) => {
          if (address === 'no-such-host:1') throw Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host'), { code: 'ENOTFOUND' });
          if (address === 'empty:1') return [];
          return [address];
        }),
    });
    w.add('a');
    const result = await w.settle(b.join(['no-such-host:1', 'empty:1', 'a']));
    expect(result.contacted, at).toEqual(['a']);
    expect(result.failed, at).toEqual([
      { address: 'no-such-host:1', reason: 'cannot resolve: Error: getaddrinfo ENOTFOUND no-such-host' },
      { address: 'empty:1', reason: 'resolves to no address' },
    ]);
  });

  it(`a name that resolves to more than ${MAX_ADDRESSES_PER_SEED} addresses has only the first ${MAX_ADDRESSES_PER_SEED} dialled`, async () => {
    make();
    const dialled: string[] = [];
    const many = Array.from({ length: 1000 }, (_, i) => `nobody-${i}`);
    const b = w.add('b', {}, { wrap: (t) => resolving(t, async () => many, dialled) });
    await w.settle(b.join(['big-name:1']).catch(() => undefined));
    expect(dialled, at).toEqual(many.slice(0, MAX_ADDRESSES_PER_SEED));
  });

  it('closing the member while it waits to retry rejects the join and leaves no timer behind', async () => {
    make();
    const b = w.add('b');
    let notices = 0;
    const joining = outcome(b.join(['nobody-home'], { retry: { intervalMs: 60_000, max: 0, onRetry: () => notices++ } }));
    await w.until(() => notices === 1);
    await b.close();
    await w.until(() => joining.settled);
    expect(String(joining.error), at).toMatch(/member b closed while waiting to retry the join/);
    if (w.clock instanceof VirtualClock) {
      // In-flight deliveries drain within a second; a forgotten 60 s retry timer would still be armed.
      w.clock.runFor(1_000);
      expect(w.clock.pending, at).toBe(0);
    }
  });

  it('never dials its own address: given the whole seed list, it retries until another seed is up', async () => {
    make();
    const dialled: string[] = [];
    const b = w.add('b', {}, { wrap: (t) => resolving(t, async (address) => [address], dialled) });
    let retries = 0;
    const joining = outcome(b.join(['b', 'a'], { retry: { intervalMs: 100, max: 0, onRetry: () => retries++ } }));
    await w.until(() => retries >= 2);
    expect(joining.settled, at).toBe(false);
    w.add('a');
    await w.until(() => joining.settled);
    expect(joining.value, at).toEqual({ contacted: ['a'], failed: [] });
    expect(dialled.filter((to) => to === 'b'), at).toEqual([]);
  });

  it('the same without a resolver (seeds dialled as given)', async () => {
    make();
    const b = w.add('b');
    let retries = 0;
    const joining = outcome(b.join([b.address, 'a'], { retry: { intervalMs: 100, max: 0, onRetry: () => retries++ } }));
    await w.until(() => retries >= 1);
    expect(joining.settled, at).toBe(false);
    w.add('a');
    await w.until(() => joining.settled);
    expect(joining.value, at).toEqual({ contacted: ['a'], failed: [] });
  });

  it('seeds that are all itself leave nothing to join: it succeeds at once, dialling nothing', async () => {
    make();
    const dialled: string[] = [];
    const b = w.add('b', {}, { wrap: (t) => resolving(t, async (address) => [address], dialled) });
    const result = await w.settle(b.join(['b', 'b'], { retry: { intervalMs: 100, max: 3 } }));
    expect(result, at).toEqual({ contacted: ['b'], failed: [] });
    expect(dialled, at).toEqual([]);
  });

  it('invalid retry options throw a RangeError listing every problem', () => {
    make();
    const b = w.add('b');
    expect(() => b.join(['a'], { retry: { intervalMs: 0, max: -1 } })).toThrow(
      'Invalid join options (2 problems):\n- retry.intervalMs must be an integer in 1..2147483647, got 0\n- retry.max must be an integer >= 0 (0 = no limit), got -1',
    );
    expect(() => b.join(['a'], { retry: { intervalMs: 1.5, max: 1 } })).toThrow(/retry\.intervalMs must be an integer/);
  });

  it("a member started under an existing member's name is refused, never retried, and the real one is never seen left", async () => {
    make();
    const a = w.add('a');
    const b = w.add('b');
    await w.settle(b.join([a.address]));
    await w.until(() => a.member('b')?.state === 'alive' && b.member('a')?.state === 'alive');
    const changesOfA: MembershipChange[] = [];
    b.on('change', (change) => {
      if (change.member.name === 'a') changesOfA.push(change);
    });
    const conflictsAtB: unknown[] = [];
    b.on('conflict', (detail) => conflictsAtB.push(detail));

    // Another 'a' at another address, joining through b.
    const impostor = new Member({ name: 'a', transport: w.network.transport('a-again'), clock: w.clock, seed: SEED + 100, config: FAST });
    const ownConflicts: unknown[] = [];
    impostor.on('conflict', (detail) => ownConflicts.push(detail));
    let retries = 0;
    try {
      const error = await w.settle(impostor.join([b.address], { retry: { intervalMs: 100, max: 0, onRetry: () => retries++ } }).then(() => undefined, (e: unknown) => e));
      expect(error, at).toBeInstanceOf(NameConflictError);
      expect(error, at).toBeInstanceOf(JoinError);
      const conflict = error as NameConflictError;
      expect([conflict.holder, conflict.attempts, retries], at).toEqual(['a', 1, 0]);
      expect(conflict.message, at).toBe('name conflict: the cluster reached through b already has a member named "a" at a; names must be unique, start this member under another name');
      expect(ownConflicts, at).toEqual([{ name: 'a', existingAddress: 'a-again', otherAddress: 'a' }]);
      // Nothing merged: the impostor knows no one to tell anything to.
      expect(impostor.allMembers().map((m) => m.name), at).toEqual(['a']);
      // Even a leave now reaches no one.
      await w.settle(impostor.leave({ timeoutMs: 500 }));
    } finally {
      await impostor.close();
    }
    await w.until(() => conflictsAtB.length > 0);
    expect(conflictsAtB[0], at).toEqual({ name: 'a', existingAddress: 'a', otherAddress: 'a-again' });
    // Two push-pulls later b still has the real a, alive, and never saw it change.
    const before = b.counters.pushPulls;
    await w.until(() => b.counters.pushPulls >= before + 2, 15_000);
    expect(b.member('a')?.state, at).toBe('alive');
    expect(b.member('a')?.address, at).toBe('a');
    expect(changesOfA, at).toEqual([]);
  });
});
