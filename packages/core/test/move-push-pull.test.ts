/**
 * A mover push-pulls until one exchange reaches a live member (anti-entropy.ts afterMove;
 * docs/design.md, "A member moves"). Gossip gives up after its retransmits wherever they went, and
 * when members move together each holds the others at addresses nobody answers at: a stream says
 * whether it got through. One core driven by hand, its peers on protocol range 1-2.
 */
import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, SwimCore, type Effect, type PushPullEntry, type SwimConfig } from '../src/index.js';

const RANGE = { min: 1, max: 2 } as const;
const EMPTY = new Uint8Array(0);
const PEERS = ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'];

/** A core `me` at me:1 that joined PEERS (each at name:1, incarnation 1, range 1-2). */
function joined(config: Partial<SwimConfig> = {}): SwimCore {
  const core = new SwimCore({ name: 'me', address: 'me:1', seed: 11, now: 0, config });
  const members: PushPullEntry[] = PEERS.map((name) => ({ name, address: `${name}:1`, meta: EMPTY, incarnation: 1, state: 'alive', protocol: RANGE }));
  const request = core.join(['b:1'], 1, 0).find((e) => e.type === 'stream-request');
  if (request?.type !== 'stream-request') throw new Error('no join request');
  core.step({ type: 'stream-response', requestId: request.requestId, bytes: encodePacket([{ type: 'push-pull', join: true, members, userState: EMPTY }], 2) }, 0);
  return core;
}

type PushPull = Extract<Effect, { type: 'stream-request' }>;

function pushPulls(effects: readonly Effect[]): PushPull[] {
  return effects.filter((e): e is PushPull => e.type === 'stream-request' && e.purpose === 'push-pull');
}

/** The peer's answer: its state, everyone alive where we hold them. */
function answer(core: SwimCore, request: PushPull, now: number): Effect[] {
  const members: PushPullEntry[] = PEERS.map((name) => ({ name, address: `${name}:1`, meta: EMPTY, incarnation: 1, state: 'alive', protocol: RANGE }));
  return core.step({ type: 'stream-response', requestId: request.requestId, bytes: encodePacket([{ type: 'push-pull', join: false, members, userState: EMPTY }], 2) }, now);
}

/** Our own entry in the state a push-pull request carries. */
function selfEntry(request: PushPull): PushPullEntry | undefined {
  const decoded = decodePacket(request.bytes);
  const state = decoded.ok ? decoded.messages[0] : undefined;
  return state?.type === 'push-pull' ? state.members.find((m) => m.name === 'me') : undefined;
}

describe('a member that moves push-pulls its move', () => {
  it('at once, with a live member, carrying its new address and the one it left', () => {
    const core = joined();
    const [request, ...more] = pushPulls(core.move('me:2', 10));
    expect(more).toEqual([]);
    expect(PEERS.map((p) => `${p}:1`)).toContain(request!.to);
    expect(selfEntry(request!)).toMatchObject({ address: 'me:2', movedFrom: 'me:1', incarnation: 2 });
    expect(core.counters.movePushPulls).toBe(1);
  });

  it('tries another member each time one fails, never one it tried, and stops at the first that answers', () => {
    const core = joined();
    const tried: string[] = [];
    let request = pushPulls(core.move('me:2', 10))[0]!;
    for (let i = 0; i < 3; i++) {
      tried.push(request.to);
      const next = pushPulls(core.step({ type: 'stream-failed', requestId: request.requestId, reason: 'connection refused' }, 20 + i));
      expect(next, `after failure ${i + 1}`).toHaveLength(1);
      request = next[0]!;
      expect(tried).not.toContain(request.to);
    }
    expect(pushPulls(answer(core, request, 30)), 'answered: no more').toEqual([]);
    expect(core.counters.movePushPulls).toBe(4);
  });

  it('gives up after eight failures in a row', () => {
    const core = joined();
    let requests = pushPulls(core.move('me:2', 10));
    const targets = new Set<string>();
    let now = 10;
    while (requests.length > 0) {
      targets.add(requests[0]!.to);
      requests = pushPulls(core.step({ type: 'stream-failed', requestId: requests[0]!.requestId, reason: 'timeout' }, ++now));
    }
    expect(core.counters.movePushPulls).toBe(8);
    expect(targets.size).toBe(8);
  });

  it('once an exchange got through, catches up once more after retransmitLimit gossip intervals, for what went to the address it left', () => {
    const core = joined();
    const request = pushPulls(core.move('me:2', 10))[0]!;
    answer(core, request, 20);
    // 11 members: retransmitMult 4 × ceil(log10(12)) = 8 rounds of gossipIntervalMs (lan: 200 ms).
    const wait = 8 * 200;
    const until = (to: number) => {
      const effects: Effect[] = [];
      for (let next = core.nextDeadline(); next !== undefined && next <= to; next = core.nextDeadline()) effects.push(...core.tick(next));
      return pushPulls(effects).filter((e) => e.requestId !== request.requestId);
    };
    expect(until(20 + wait - 1), 'not before').toEqual([]);
    const catchUp = until(20 + wait);
    expect(catchUp).toHaveLength(1);
    expect(core.counters.movePushPulls).toBe(2);
    expect(until(20 + wait + 5_000), 'only once').toEqual([]);
  });

  it('no catch-up while no exchange got through', () => {
    const core = joined();
    let requests = pushPulls(core.move('me:2', 10));
    let now = 10;
    while (requests.length > 0) requests = pushPulls(core.step({ type: 'stream-failed', requestId: requests[0]!.requestId, reason: 'timeout' }, ++now));
    const effects: Effect[] = [];
    for (let next = core.nextDeadline(); next !== undefined && next <= now + 5_000; next = core.nextDeadline()) effects.push(...core.tick(next));
    expect(pushPulls(effects)).toEqual([]);
    expect(core.counters.movePushPulls).toBe(8);
  });

  it('takes an error reply (a busy peer) as a failure and asks another', () => {
    const core = joined();
    const request = pushPulls(core.move('me:2', 10))[0]!;
    const busy = encodePacket([{ type: 'error', message: 'too many pending push-pull requests' }], 2);
    const next = pushPulls(core.step({ type: 'stream-response', requestId: request.requestId, bytes: busy }, 20));
    expect(next).toHaveLength(1);
    expect(next[0]!.to).not.toBe(request.to);
  });

  it('an answer to the exchange of an earlier move does not end the tries of the last one', () => {
    const core = joined();
    const first = pushPulls(core.move('me:2', 10))[0]!;
    const second = pushPulls(core.move('me:3', 20))[0]!;
    expect(selfEntry(second)).toMatchObject({ address: 'me:3', movedFrom: 'me:2' });
    answer(core, first, 30);
    const retry = pushPulls(core.step({ type: 'stream-failed', requestId: second.requestId, reason: 'timeout' }, 40));
    expect(retry, 'the last move still tries').toHaveLength(1);
  });

  it('not with anti-entropy off (pushPullIntervalMs 0), nor on an ordinary address-less change', () => {
    const off = joined({ pushPullIntervalMs: 0 });
    expect(pushPulls(off.move('me:2', 10))).toEqual([]);
    expect(off.counters.movePushPulls).toBe(0);
    const core = joined();
    expect(pushPulls(core.updateMeta(new Uint8Array([1]), 10))).toEqual([]);
  });

  it('nobody alive to ask: no exchange', () => {
    const core = new SwimCore({ name: 'me', address: 'me:1', seed: 11, now: 0 });
    expect(pushPulls(core.move('me:2', 10))).toEqual([]);
    expect(core.counters.movePushPulls).toBe(0);
  });
});
