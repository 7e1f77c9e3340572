import { describe, expect, it } from 'vitest';
import { encodePacket, type Effect, type PushPullEntry } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

const entry = (name: string, address: string, state: PushPullEntry['state'] = 'alive', incarnation = 1): PushPullEntry => ({
  name,
  address,
  meta: new Uint8Array(0),
  incarnation,
  state,
});

/** `me` (at me:1) joins through seed:1, which answers with `members`. */
function joinAnswered(members: PushPullEntry[]): { node: LoneCore; effects: Effect[] } {
  const node = new LoneCore({});
  const request = node.core.join(['seed:1'], 7, 0).find((e): e is Extract<Effect, { type: 'stream-request' }> => e.type === 'stream-request')!;
  const reply = encodePacket([{ type: 'push-pull', join: true, members, userState: new Uint8Array(0) }]);
  const effects = node.core.step({ type: 'stream-response', requestId: request.requestId, bytes: reply }, 0);
  return { node, effects };
}

describe('a join that meets our own name at another address', () => {
  it.each(['alive', 'suspect'] as const)('is refused when the seed holds our name %s elsewhere: reported, nothing merged', (state) => {
    const { node, effects } = joinAnswered([entry('seed', 'seed:1'), entry('me', 'elsewhere:1', state, 4), entry('c', 'c:1')]);
    expect(effects).toContainEqual({ type: 'conflict', name: 'me', existingAddress: 'me:1', otherAddress: 'elsewhere:1' });
    const finished = effects.find((e) => e.type === 'join-finished');
    expect(finished).toEqual({
      type: 'join-finished',
      joinId: 7,
      contacted: [],
      failed: [{ address: 'seed:1', reason: 'name conflict: the cluster already has a member named "me" at elsewhere:1 (names must be unique)', nameHolder: 'elsewhere:1' }],
    });
    // Not merged: we know no one, so nothing we send later reaches that cluster.
    expect(node.core.allMembers().map((m) => m.name)).toEqual(['me']);
    expect(node.core.incarnation).toBe(1);
    expect(effects.some((e) => e.type === 'member')).toBe(false);
  });

  it('is a normal join when the entry is us at our own address (a restart at the same address)', () => {
    const { node, effects } = joinAnswered([entry('seed', 'seed:1'), entry('me', 'me:1', 'alive', 3)]);
    expect(effects).toContainEqual({ type: 'join-finished', joinId: 7, contacted: ['seed:1'], failed: [] });
    expect(effects.some((e) => e.type === 'conflict')).toBe(false);
    // Our older life is outvoted as usual.
    expect(node.core.incarnation).toBeGreaterThan(3);
    expect(node.core.member('seed')?.state).toBe('alive');
  });

  it.each(['dead', 'left'] as const)('is a normal join when our name is %s elsewhere (the name is free again)', (state) => {
    const { node, effects } = joinAnswered([entry('seed', 'seed:1'), entry('me', 'old:1', state, 2)]);
    expect(effects).toContainEqual({ type: 'join-finished', joinId: 7, contacted: ['seed:1'], failed: [] });
    expect(effects.some((e) => e.type === 'conflict')).toBe(false);
    expect(node.core.member('seed')?.state).toBe('alive');
  });

  it('refuses only the seeds that hold our name: the others are merged', () => {
    const node = new LoneCore({});
    const requests = node.core.join(['x:1', 'y:1'], 8, 0).filter((e): e is Extract<Effect, { type: 'stream-request' }> => e.type === 'stream-request');
    const answer = (i: number, members: PushPullEntry[]) =>
      node.core.step({ type: 'stream-response', requestId: requests[i]!.requestId, bytes: encodePacket([{ type: 'push-pull', join: true, members, userState: new Uint8Array(0) }]) }, 0);
    answer(0, [entry('x', 'x:1'), entry('me', 'elsewhere:1')]);
    const effects = answer(1, [entry('y', 'y:1')]);
    const finished = effects.find((e) => e.type === 'join-finished');
    expect(finished).toMatchObject({ contacted: ['y:1'], failed: [{ address: 'x:1', nameHolder: 'elsewhere:1' }] });
    expect(node.core.member('x')).toBeUndefined();
    expect(node.core.member('y')?.state).toBe('alive');
  });

  it('a periodic push-pull (not a join) that meets our name elsewhere only reports the conflict, as before', () => {
    const node = new LoneCore({ pushPullIntervalMs: 1000 });
    node.introduce('b');
    const effects: Effect[] = [];
    node.advance(3000, (effect, n) => {
      if (effect.type !== 'stream-request' || effect.purpose !== 'push-pull') return;
      const reply = encodePacket([{ type: 'push-pull', join: false, members: [entry('b', 'b:1'), entry('me', 'elsewhere:1')], userState: new Uint8Array(0) }]);
      effects.push(...n.core.step({ type: 'stream-response', requestId: effect.requestId, bytes: reply }, n.now));
    });
    expect(effects).toContainEqual({ type: 'conflict', name: 'me', existingAddress: 'me:1', otherAddress: 'elsewhere:1' });
    expect(effects.some((e) => e.type === 'join-finished')).toBe(false);
  });
});
