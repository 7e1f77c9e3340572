/** `member.changes({ kinds })`: only the kinds asked for, filtered before the per-member buffer. */
import { afterEach, describe, expect, it } from 'vitest';
import { MEMBER_EVENT_KINDS, type MembershipChange } from '../src/index.js';
import { SEED, world, type World } from './world.js';

describe('changes({ kinds })', () => {
  let w: World;
  const at = `virtual time, seed ${SEED}`;

  afterEach(async () => {
    await w.close();
  });

  /** Every change an iterator holds right now (it is read only after the fact, as a slow consumer would). */
  async function drain(iterator: AsyncIterableIterator<MembershipChange>): Promise<string[]> {
    const seen: string[] = [];
    for (;;) {
      const next = await Promise.race([iterator.next(), Promise.resolve('empty' as const)]);
      if (next === 'empty' || next.done === true) return seen;
      seen.push(`${next.value.event} ${next.value.member.name}`);
    }
  }

  it('keeps only the kinds asked for, and a kept change is not replaced by a later one of another kind', async () => {
    w = world('virtual');
    const a = w.add('a');
    const controller = new AbortController();
    const every = a.changes({ signal: controller.signal });
    const joinsAndDeaths = a.changes({ kinds: ['join', 'dead'], signal: controller.signal });
    const suspicions = a.changes({ kinds: ['suspect'], signal: controller.signal });

    const b = w.add('b');
    await w.settle(b.join([a.address]));
    await w.until(() => a.member('b')?.state === 'alive');
    // b stops without a leave: a suspects it, then declares it dead. Nobody reads meanwhile.
    await b.close();
    await w.until(() => a.member('b')?.state === 'dead', 30_000);

    // The unfiltered iterator keeps the latest change per member: b's death replaced the rest.
    expect(await drain(every), at).toEqual(['dead b']);
    expect(await drain(joinsAndDeaths), at).toEqual(['dead b']);
    // Filtered before buffering: the suspicion stays although b's death came after it.
    expect(await drain(suspicions), at).toEqual(['suspect b']);
    controller.abort();
  });

  it('yields a join to a kinds: [join] consumer that is waiting, and nothing of the other kinds', async () => {
    w = world('virtual');
    const a = w.add('a');
    const joins = a.changes({ kinds: ['join'] });
    const first = joins.next();
    const b = w.add('b');
    await w.settle(b.join([a.address]));
    const change = await w.settle(first);
    expect(change.done === false && [change.value.event, change.value.member.name], at).toEqual(['join', 'b']);
    await b.close();
    await w.until(() => a.member('b')?.state === 'dead', 30_000);
    expect(await drain(joins), `${at}: suspect and dead are not joins`).toEqual([]);
    await a.close();
    expect(await joins.next(), at).toEqual({ value: undefined, done: true });
  });

  it('refuses unknown kinds, naming every one, and an empty list', () => {
    w = world('virtual');
    const a = w.add('a');
    expect(() => a.changes({ kinds: ['join', 'died', 'leave'] as never })).toThrow(
      `unknown event kinds "died", "leave" (expected ${MEMBER_EVENT_KINDS.join(', ')})`,
    );
    expect(() => a.changes({ kinds: [] })).toThrow(/kinds is empty/);
    expect(MEMBER_EVENT_KINDS).toEqual(['join', 'update', 'suspect', 'alive', 'dead', 'left']);
  });
});
