/**
 * A member moves to a new address (docs/design.md, "A member moves"): the core's `move` input,
 * peers taking the announced move, forged moves refuted by moving back, and the move passed on
 * in gossip and push-pulls. One core driven by hand; its peers announce protocol range 1-2, so it
 * writes version 2, where the move travels.
 */
import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, SwimCore, type AliveMessage, type Effect, type Message, type PushPullEntry } from '../src/index.js';

const RANGE = { min: 1, max: 2 } as const;
const EMPTY = new Uint8Array(0);

/** A core `me` at me:1 that joined b, c and d (each at name:1, incarnation 1, range 1-2). */
function joined(): { core: SwimCore; now: number } {
  const core = new SwimCore({ name: 'me', address: 'me:1', seed: 7, now: 0 });
  const members: PushPullEntry[] = ['b', 'c', 'd'].map((name) => ({ name, address: `${name}:1`, meta: EMPTY, incarnation: 1, state: 'alive', protocol: RANGE }));
  const effects = core.join(['b:1'], 1, 0);
  const request = effects.find((e) => e.type === 'stream-request');
  if (request?.type !== 'stream-request') throw new Error('no join request');
  core.step({ type: 'stream-response', requestId: request.requestId, bytes: encodePacket([{ type: 'push-pull', join: true, members, userState: EMPTY }], 2) }, 0);
  expect(core.protocolVersion).toBe(2);
  return { core, now: 0 };
}

/** Every message the core sent in packets among `effects`, decoded. */
function sent(effects: readonly Effect[]): Message[] {
  return effects.flatMap((effect) => {
    if (effect.type !== 'send-packet') return [];
    const decoded = decodePacket(effect.bytes);
    if (!decoded.ok) throw new Error(`undecodable packet: ${decoded.error.detail}`);
    return decoded.messages;
  });
}

/** What the core gossips over the next `ms` (its gossip ticks), with whatever it sends directly. */
function gossipFor(core: SwimCore, from: number, ms: number, already: readonly Effect[] = []): Message[] {
  const effects: Effect[] = [...already];
  for (let next = core.nextDeadline(); next !== undefined && next <= from + ms; next = core.nextDeadline()) effects.push(...core.tick(next));
  return sent(effects);
}

function alivesAbout(messages: readonly Message[], node: string): AliveMessage[] {
  return messages.filter((m): m is AliveMessage => m.type === 'alive' && m.node === node);
}

/** Our push-pull reply to a peer (c) that sends `members`, after merging them. */
function pushPullState(core: SwimCore, members: PushPullEntry[], now: number): readonly PushPullEntry[] {
  core.receiveStream(1, 'c:1', encodePacket([{ type: 'push-pull', join: false, members, userState: EMPTY }], 2), now);
  for (let next = core.nextDeadline(); next !== undefined && next <= now + 5; next = core.nextDeadline()) core.tick(next);
  const request = encodePacket([{ type: 'push-pull', join: false, members: [], userState: EMPTY }], 2);
  const reply = core.receiveStream(2, 'c:1', request, now + 10).find((e) => e.type === 'stream-reply');
  if (reply?.type !== 'stream-reply' || reply.bytes === undefined) throw new Error('no push-pull reply');
  const decoded = decodePacket(reply.bytes);
  const state = decoded.ok ? decoded.messages[0] : undefined;
  if (state?.type !== 'push-pull') throw new Error('the reply is no push-pull');
  return state.members;
}

function packet(...messages: Message[]): Uint8Array {
  return encodePacket(messages, 2);
}

describe("the core's move input", () => {
  it('raises our incarnation, takes the new address and gossips our alive with the address we left', () => {
    const { core, now } = joined();
    const effects = core.move('me:2', now);
    expect(core.address).toBe('me:2');
    expect(core.incarnation).toBe(2);
    expect(core.member('me')).toMatchObject({ address: 'me:2', incarnation: 2, state: 'alive' });
    expect(effects).toContainEqual(expect.objectContaining({ type: 'member', event: 'update', previous: 'alive', member: expect.objectContaining({ name: 'me', address: 'me:2' }) }));
    const alives = alivesAbout(gossipFor(core, now, 1_000, effects), 'me');
    expect(alives.length).toBeGreaterThan(0);
    for (const alive of alives) expect(alive).toMatchObject({ incarnation: 2, address: 'me:2', movedFrom: 'me:1', protocol: RANGE });
    // Our pings now name the new address as the one to answer at.
    const pings = gossipFor(core, now + 1_000, 5_000).filter((m) => m.type === 'ping');
    expect(pings.length).toBeGreaterThan(0);
    for (const ping of pings) expect(ping).toMatchObject({ sourceAddress: 'me:2' });
  });

  it('keeps announcing where it moved from: a later meta update carries movedFrom too', () => {
    const { core, now } = joined();
    core.move('me:2', now);
    const effects = core.updateMeta(Uint8Array.of(1), now + 10);
    const alives = alivesAbout(gossipFor(core, now + 10, 1_000, effects), 'me');
    expect(alives.at(-1)).toMatchObject({ incarnation: 3, address: 'me:2', movedFrom: 'me:1' });
  });

  it('is ignored while leaving and when the address is ours; refuses an address the wire cannot carry', () => {
    const { core, now } = joined();
    expect(core.move('me:1', now)).toEqual([]);
    expect(core.incarnation).toBe(1);
    expect(() => core.move('', now)).toThrow(RangeError);
    expect(() => core.move('x'.repeat(256), now)).toThrow(/move: /);
    expect(core.address).toBe('me:1');
    core.leave(now);
    expect(core.move('me:2', now + 1)).toEqual([]);
    expect(core.address).toBe('me:1');
    expect(core.member('me')).toMatchObject({ address: 'me:1', state: 'left' });
  });
});

describe('a peer that moved', () => {
  const bMoved: AliveMessage = { type: 'alive', incarnation: 2, node: 'b', address: 'b:2', meta: EMPTY, protocol: RANGE, movedFrom: 'b:1' };

  it('is taken at its new address: an update event, no conflict, and the move gossiped on', () => {
    const { core, now } = joined();
    const effects = core.receivePacket('b:2', packet(bMoved), now);
    expect(effects.filter((e) => e.type === 'conflict')).toEqual([]);
    expect(core.member('b')).toMatchObject({ address: 'b:2', incarnation: 2, state: 'alive' });
    expect(effects).toContainEqual(expect.objectContaining({ type: 'member', event: 'update', member: expect.objectContaining({ name: 'b', address: 'b:2' }) }));
    const alives = alivesAbout(gossipFor(core, now, 1_000, effects), 'b');
    expect(alives.length).toBeGreaterThan(0);
    for (const alive of alives) expect(alive).toEqual(bMoved);
  });

  it('is told at the address it left, at once: a live member a forgery moved away hears of it there', () => {
    const { core, now } = joined();
    const effects = core.receivePacket('evil:9', packet(bMoved), now);
    const toOld = effects.filter((e) => e.type === 'send-packet' && e.to === 'b:1');
    expect(toOld).toHaveLength(1);
    expect(alivesAbout(sent(toOld), 'b')).toEqual([bMoved]);
    // Heard again, nothing is applied, so nothing more is sent there.
    expect(core.receivePacket('evil:9', packet(bMoved), now + 1).filter((e) => e.type === 'send-packet' && e.to === 'b:1')).toEqual([]);
  });

  it('then its life before the move, arriving late, is old news, not a conflict; a third address still is one', () => {
    const { core, now } = joined();
    core.receivePacket('b:2', packet(bMoved), now);
    const late = core.receivePacket('c:1', packet({ type: 'alive', incarnation: 1, node: 'b', address: 'b:1', meta: EMPTY, protocol: RANGE }), now + 1);
    expect(late.filter((e) => e.type === 'conflict' || e.type === 'member')).toEqual([]);
    expect(core.member('b')).toMatchObject({ address: 'b:2', incarnation: 2 });
    const other = core.receivePacket('c:1', packet({ type: 'alive', incarnation: 3, node: 'b', address: 'b:3', meta: EMPTY, protocol: RANGE }), now + 2);
    expect(other).toContainEqual({ type: 'conflict', name: 'b', existingAddress: 'b:2', otherAddress: 'b:3' });
  });

  it('without movedFrom, or from an address we do not hold, is a conflict as before', () => {
    const { core, now } = joined();
    const { movedFrom: _move, ...plainAlive } = bMoved;
    expect(core.receivePacket('b:2', packet(plainAlive), now)).toContainEqual({ type: 'conflict', name: 'b', existingAddress: 'b:1', otherAddress: 'b:2' });
    expect(core.receivePacket('b:2', packet({ ...bMoved, movedFrom: 'b:9' }), now)).toContainEqual({ type: 'conflict', name: 'b', existingAddress: 'b:1', otherAddress: 'b:2' });
    expect(core.member('b')).toMatchObject({ address: 'b:1', incarnation: 1 });
  });

  it('is in our push-pull state with movedFrom, so a member that missed the move learns it', () => {
    const { core, now } = joined();
    core.receivePacket('b:2', packet(bMoved), now);
    const request = encodePacket([{ type: 'push-pull', join: false, members: [{ name: 'c', address: 'c:1', meta: EMPTY, incarnation: 1, state: 'alive', protocol: RANGE }], userState: EMPTY }], 2);
    const reply = core.receiveStream(1, 'c:1', request, now + 1).find((e) => e.type === 'stream-reply');
    if (reply?.type !== 'stream-reply' || reply.bytes === undefined) throw new Error('no push-pull reply');
    const decoded = decodePacket(reply.bytes);
    const state = decoded.ok ? decoded.messages[0] : undefined;
    if (state?.type !== 'push-pull') throw new Error('the reply is no push-pull');
    expect(state.members.find((m) => m.name === 'b')).toEqual({ name: 'b', address: 'b:2', meta: EMPTY, incarnation: 2, state: 'alive', protocol: RANGE, movedFrom: 'b:1' });
    expect(state.members.find((m) => m.name === 'c')).not.toHaveProperty('movedFrom');
  });

  it('new to us, is kept with movedFrom and passed on so', () => {
    const { core, now } = joined();
    const entry: PushPullEntry = { name: 'e', address: 'e:2', meta: EMPTY, incarnation: 4, state: 'alive', protocol: RANGE, movedFrom: 'e:1' };
    const state = pushPullState(core, [entry], now);
    expect(state.find((m) => m.name === 'e')).toEqual(entry);
  });

  it('heard first in a push-pull entry, is taken from there', () => {
    const { core, now } = joined();
    const entry: PushPullEntry = { name: 'b', address: 'b:2', meta: EMPTY, incarnation: 2, state: 'alive', protocol: RANGE, movedFrom: 'b:1' };
    const effects = core.receiveStream(1, 'c:1', encodePacket([{ type: 'push-pull', join: false, members: [entry], userState: EMPTY }], 2), now);
    for (let next = core.nextDeadline(); next !== undefined && next <= now + 5; next = core.nextDeadline()) effects.push(...core.tick(next));
    expect(effects.filter((e) => e.type === 'conflict')).toEqual([]);
    expect(core.member('b')).toMatchObject({ address: 'b:2', incarnation: 2 });
  });
});

describe('a forged move of ourselves', () => {
  it('is refuted by moving back: our alive above it, at our address, naming the forged address as the one we left', () => {
    const { core, now } = joined();
    const forged: AliveMessage = { type: 'alive', incarnation: 5, node: 'me', address: 'evil:9', meta: EMPTY, protocol: RANGE, movedFrom: 'me:1' };
    const effects = core.receivePacket('c:1', packet(forged), now);
    expect(core.address).toBe('me:1');
    expect(core.incarnation).toBe(6);
    expect(effects.filter((e) => e.type === 'conflict')).toEqual([]);
    const alives = alivesAbout(gossipFor(core, now, 1_000, effects), 'me');
    expect(alives.length).toBeGreaterThan(0);
    for (const alive of alives) expect(alive).toMatchObject({ incarnation: 6, address: 'me:1', movedFrom: 'evil:9' });
    // The forgery heard again is old news now.
    const again = core.receivePacket('d:1', packet(forged), now + 2_000);
    expect(again.filter((e) => e.type === 'conflict')).toEqual([]);
    expect(core.incarnation).toBe(6);
  });

  it('and a peer holding the forged move takes our move back', () => {
    // The peer's view: b (at b:1) was moved to evil:9 by a forgery at 5; b moves back at 6.
    const { core, now } = joined();
    core.receivePacket('c:1', packet({ type: 'alive', incarnation: 5, node: 'b', address: 'evil:9', meta: EMPTY, protocol: RANGE, movedFrom: 'b:1' }), now);
    expect(core.member('b')).toMatchObject({ address: 'evil:9' });
    const back = core.receivePacket('b:1', packet({ type: 'alive', incarnation: 6, node: 'b', address: 'b:1', meta: EMPTY, protocol: RANGE, movedFrom: 'evil:9' }), now + 1);
    expect(back.filter((e) => e.type === 'conflict')).toEqual([]);
    expect(core.member('b')).toMatchObject({ address: 'b:1', incarnation: 6, state: 'alive' });
  });
});
