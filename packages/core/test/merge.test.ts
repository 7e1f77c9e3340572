import { describe, expect, it } from 'vitest';
import {
  decideAlive,
  decideDead,
  decideSuspect,
  MAX_INCARNATION,
  refutingIncarnation,
  supersedes,
  type KnownMember,
  type MergeContext,
} from '../src/members/merge.js';
import type { MemberState } from '../src/members/member.js';

const ctx: MergeContext = {
  selfName: 'me',
  leaving: false,
  now: 100_000,
  deadNodeReclaimMs: 0,
  leftNameReclaimMs: 30_000,
  maxIncarnationJump: 65_536,
};
const meta = new Uint8Array([1]);

function known(state: MemberState, incarnation: number, over: Partial<KnownMember> = {}): KnownMember {
  return { state, incarnation, address: 'a:1', meta, stateChangedAt: 0, ...over };
}

describe('supersedes: (incarnation, rank) with alive < suspect < dead < left', () => {
  const states: MemberState[] = ['alive', 'suspect', 'dead', 'left'];
  it.each(states.flatMap((next) => states.map((current) => [next, current] as const)))(
    'same incarnation: %s over %s',
    (next, current) => {
      const rank = { alive: 0, suspect: 1, dead: 2, left: 3 };
      expect(supersedes({ state: next, incarnation: 3 }, { state: current, incarnation: 3 })).toBe(rank[next] > rank[current]);
    },
  );
  it.each(states.flatMap((next) => states.map((current) => [next, current] as const)))(
    'higher incarnation wins whatever the states: %s@4 over %s@3',
    (next, current) => {
      expect(supersedes({ state: next, incarnation: 4 }, { state: current, incarnation: 3 })).toBe(true);
      expect(supersedes({ state: next, incarnation: 2 }, { state: current, incarnation: 3 })).toBe(false);
    },
  );
});

// An announced move (docs/design.md, "A member moves"): the only address change taken from a live member.
describe('decideAlive: a member that moved', () => {
  const moved = (incarnation: number, movedFrom: string | undefined, address = 'b:2', node = 'x') =>
    movedFrom === undefined ? { incarnation, address, meta, node } : { incarnation, address, meta, node, movedFrom };
  const MOVE = { kind: 'apply', readdress: true, moved: true };
  it.each([
    ['alive@3 at a:1, moved from a:1 @4', known('alive', 3), moved(4, 'a:1'), MOVE],
    ['suspect@3 at a:1, moved from a:1 @4 (the move refutes the suspicion)', known('suspect', 3), moved(4, 'a:1'), MOVE],
    ['dead@3 at a:1, moved from a:1 @4 (back, elsewhere)', known('dead', 3), moved(4, 'a:1'), MOVE],
    ['alive@3 at a:1, moved from a:1 @9 (within the jump bound)', known('alive', 3), moved(9, 'a:1'), MOVE],
    ['alive@3 at a:1, moved from a:1 @3 (not newer)', known('alive', 3), moved(3, 'a:1'), { kind: 'conflict' }],
    ['alive@3 at a:1, moved from a:1 @2 (older)', known('alive', 3), moved(2, 'a:1'), { kind: 'conflict' }],
    ['alive@3 at a:1, moved from c:3 @4 (not from where we hold it, which answers)', known('alive', 3), moved(4, 'c:3'), { kind: 'conflict' }],
    ['suspect@3 at a:1, moved from c:3 @4 (we missed a move before this one)', known('suspect', 3), moved(4, 'c:3'), MOVE],
    ['dead@3 at a:1, moved from c:3 @4 (we missed a move before this one)', known('dead', 3), moved(4, 'c:3'), MOVE],
    ['suspect@3 at a:1, moved from c:3 @3 (not newer)', known('suspect', 3), moved(3, 'c:3'), { kind: 'conflict' }],
    ['suspect@3 at a:1, no movedFrom @4 (no move announced)', known('suspect', 3), moved(4, undefined), { kind: 'conflict' }],
    ['left@3 at a:1 (within leftNameReclaimMs), moved from c:3 @4: left stays left', known('left', 3, { stateChangedAt: 90_000 }), moved(4, 'c:3'), { kind: 'conflict' }],
    ['alive@3 at a:1, no movedFrom @4', known('alive', 3), moved(4, undefined), { kind: 'conflict' }],
    ['left@3 at a:1 (within leftNameReclaimMs), moved from a:1 @4: left stays left', known('left', 3, { stateChangedAt: 90_000 }), moved(4, 'a:1'), { kind: 'conflict' }],
    ['alive@3 at a:1, moved from a:1 @70000 (an implausible jump)', known('alive', 3), moved(70_000, 'a:1'), { kind: 'implausible' }],
    ['unknown, moved from a:1 @4 (a new member to us)', undefined, moved(4, 'a:1'), { kind: 'create' }],
    ['alive@3 at b:2, moved from a:1 @4 (already there: plain news)', known('alive', 3, { address: 'b:2' }), moved(4, 'a:1'), { kind: 'apply', readdress: false }],
    ['alive@3 at b:2, moved from a:1 @3 (the move, heard again)', known('alive', 3, { address: 'b:2', movedFrom: 'a:1' }), moved(3, 'a:1'), { kind: 'ignore' }],
    ['alive@4 at b:2 moved from a:1, alive@3 from a:1 (its life before the move, late)', known('alive', 4, { address: 'b:2', movedFrom: 'a:1' }), moved(3, undefined, 'a:1'), { kind: 'ignore' }],
    ['alive@4 at b:2 moved from a:1, alive@4 from a:1 (not older than the move)', known('alive', 4, { address: 'b:2', movedFrom: 'a:1' }), moved(4, undefined, 'a:1'), { kind: 'conflict' }],
    ['alive@4 at b:2 moved from a:1, alive@3 from c:3 (a life before an earlier move, held by one that missed it)', known('alive', 4, { address: 'b:2', movedFrom: 'a:1' }), moved(3, undefined, 'c:3'), { kind: 'ignore' }],
    ['alive@4 at b:2 never moved, alive@3 from c:3 (no move of ours explains it)', known('alive', 4, { address: 'b:2' }), moved(3, undefined, 'c:3'), { kind: 'conflict' }],
  ] as const)('%s', (_, current, update, decision) => {
    expect(decideAlive(update, current, ctx)).toEqual(decision);
  });

  it('about ourselves, claiming we moved, from our address or any other: move back (refute-move); anything else as before', () => {
    const self = known('alive', 3);
    expect(decideAlive(moved(4, 'a:1', 'evil:9', 'me'), self, ctx)).toEqual({ kind: 'refute-move' });
    expect(decideAlive(moved(3, 'a:1', 'evil:9', 'me'), self, ctx)).toEqual({ kind: 'conflict' });
    // Members that hold us suspect or dead take a move from anywhere: it must be undone as well.
    expect(decideAlive(moved(4, 'c:3', 'evil:9', 'me'), self, ctx)).toEqual({ kind: 'refute-move' });
    expect(decideAlive(moved(4, undefined, 'evil:9', 'me'), self, ctx)).toEqual({ kind: 'conflict' });
    expect(decideAlive(moved(4, 'a:1', 'evil:9', 'me'), self, { ...ctx, leaving: true })).toEqual({ kind: 'ignore' });
    // The forged move, heard again after we moved back (we hold movedFrom = its address, above its incarnation).
    expect(decideAlive(moved(4, 'a:1', 'evil:9', 'me'), known('alive', 5, { movedFrom: 'evil:9' }), ctx)).toEqual({ kind: 'ignore' });
    // Our own alive from before our move, echoed back.
    expect(decideAlive(moved(2, undefined, 'old:1', 'me'), known('alive', 3, { movedFrom: 'old:1' }), ctx)).toEqual({ kind: 'ignore' });
  });
});

// memberlist aliveNode about a remote member.
describe('decideAlive', () => {
  const alive = (incarnation: number, address = 'a:1', m = meta) => ({ incarnation, address, meta: m, node: 'x' });
  it.each([
    ['unknown member', undefined, 1, 'create'],
    ['alive@3, alive@4', known('alive', 3), 4, 'apply'],
    ['alive@3, alive@3 (needs strictly greater)', known('alive', 3), 3, 'ignore'],
    ['alive@3, alive@2', known('alive', 3), 2, 'ignore'],
    ['suspect@3, alive@3', known('suspect', 3), 3, 'ignore'],
    ['suspect@3, alive@4 (refuted)', known('suspect', 3), 4, 'apply'],
    ['suspect@3, alive@1 (suspicion runs its course; probes carry it)', known('suspect', 3), 1, 'ignore'],
    ['dead@3, alive@3 (stale: held dead at its own incarnation)', known('dead', 3), 3, 'stale'],
    ['dead@3, alive@1 (stale: a restart, back at incarnation 1)', known('dead', 3), 1, 'stale'],
    ['dead@3, alive@4 (back from the dead)', known('dead', 3), 4, 'apply'],
    ['left@3, alive@3 (stale: left, then restarted)', known('left', 3), 3, 'stale'],
    ['left@3, alive@1 (stale)', known('left', 3), 1, 'stale'],
    ['left@3, alive@4 (rejoined)', known('left', 3), 4, 'apply'],
  ] as const)('%s -> %s', (_, current, incarnation, kind) => {
    expect(decideAlive(alive(incarnation), current, ctx).kind).toBe(kind);
  });

  it('same name from another address is a conflict, even at a higher incarnation', () => {
    expect(decideAlive(alive(9, 'b:2'), known('alive', 3), ctx)).toEqual({ kind: 'conflict' });
    expect(decideAlive(alive(9, 'b:2'), known('suspect', 3), ctx)).toEqual({ kind: 'conflict' });
  });
  it('a left member keeps its name for leftNameReclaimMs, then can be re-addressed at any incarnation', () => {
    // memberlist frees a left name at once: a forged leave and an alive then take it over before
    // the member hears of the leave and refutes it.
    const left = known('left', 3, { stateChangedAt: 80_000 });
    expect(decideAlive(alive(9, 'b:2'), left, ctx)).toEqual({ kind: 'conflict' });
    expect(decideAlive(alive(1, 'b:2'), left, { ...ctx, now: 110_000 })).toEqual({ kind: 'apply', readdress: true });
    expect(decideAlive(alive(1, 'b:2'), left, { ...ctx, leftNameReclaimMs: 0 })).toEqual({ kind: 'apply', readdress: true });
  });
  it('a dead member is re-addressed only after the reclaim time, and never when it is 0', () => {
    const dead = known('dead', 3, { stateChangedAt: 50_000 });
    expect(decideAlive(alive(1, 'b:2'), dead, ctx).kind).toBe('conflict');
    expect(decideAlive(alive(1, 'b:2'), dead, { ...ctx, deadNodeReclaimMs: 60_000 }).kind).toBe('conflict');
    expect(decideAlive(alive(1, 'b:2'), dead, { ...ctx, deadNodeReclaimMs: 40_000 })).toEqual({ kind: 'apply', readdress: true });
  });

  describe('about ourselves', () => {
    const me = known('alive', 5);
    const aboutMe = (incarnation: number, m = meta, address = 'a:1') => ({ incarnation, address, meta: m, node: 'me' });
    it.each([
      ['older incarnation', aboutMe(4), 'ignore'],
      ['our own echo (same incarnation and meta)', aboutMe(5), 'ignore'],
      ['same incarnation, other meta', aboutMe(5, new Uint8Array([2])), 'refute'],
      ['newer incarnation (a previous life)', aboutMe(6), 'refute'],
      ['another address claims our name', aboutMe(9, meta, 'b:2'), 'conflict'],
    ] as const)('%s -> %s', (_, update, kind) => {
      expect(decideAlive(update, me, ctx).kind).toBe(kind);
    });
    it('after leave, alive messages about us are ignored (memberlist hasLeft)', () => {
      expect(decideAlive(aboutMe(9), me, { ...ctx, leaving: true }).kind).toBe('ignore');
    });
  });
});

// memberlist suspectNode.
describe('decideSuspect', () => {
  const suspect = (incarnation: number, node = 'x') => ({ incarnation, node });
  it.each([
    ['unknown member', undefined, 1, 'ignore'],
    ['alive@3, suspect@2 (stale)', known('alive', 3), 2, 'ignore'],
    ['alive@3, suspect@3', known('alive', 3), 3, 'suspect'],
    ['alive@3, suspect@4', known('alive', 3), 4, 'suspect'],
    ['suspect@3, suspect@3 (a confirmation)', known('suspect', 3), 3, 'confirm'],
    ['suspect@3, suspect@4 (refuted, then accused again: a new suspicion)', known('suspect', 3), 4, 'resuspect'],
    ['suspect@3, suspect@2', known('suspect', 3), 2, 'ignore'],
    ['dead@3, suspect@3', known('dead', 3), 3, 'ignore'],
    ['left@3, suspect@3', known('left', 3), 3, 'ignore'],
    ['dead@3, suspect@4 (came back, suspected again)', known('dead', 3), 4, 'suspect'],
  ] as const)('%s -> %s', (_, current, incarnation, kind) => {
    expect(decideSuspect(suspect(incarnation), current, ctx).kind).toBe(kind);
  });
  it('about ourselves: refute at or above our incarnation, never suspect ourselves', () => {
    expect(decideSuspect(suspect(5, 'me'), known('alive', 5), ctx).kind).toBe('refute');
    expect(decideSuspect(suspect(7, 'me'), known('alive', 5), ctx).kind).toBe('refute');
    expect(decideSuspect(suspect(4, 'me'), known('alive', 5), ctx).kind).toBe('ignore');
    expect(decideSuspect(suspect(5, 'me'), known('left', 5), { ...ctx, leaving: true }).kind).toBe('ignore');
  });
});

// memberlist deadNode.
describe('decideDead', () => {
  const dead = (incarnation: number, from = 'y', node = 'x') => ({ incarnation, node, from });
  it.each([
    ['unknown member', undefined, dead(1), { kind: 'ignore' }],
    ['alive@3, dead@2 (stale)', known('alive', 3), dead(2), { kind: 'ignore' }],
    ['alive@3, dead@3 (wins at equal incarnation)', known('alive', 3), dead(3), { kind: 'apply', state: 'dead' }],
    ['suspect@3, dead@3', known('suspect', 3), dead(3), { kind: 'apply', state: 'dead' }],
    ['alive@3, dead@3 from itself = left', known('alive', 3), dead(3, 'x'), { kind: 'apply', state: 'left' }],
    ['dead@3, dead@3', known('dead', 3), dead(3), { kind: 'ignore' }],
    ['dead@3, left@3 (the graceful leave is recorded)', known('dead', 3), dead(3, 'x'), { kind: 'apply', state: 'left' }],
    ['left@3, dead@3', known('left', 3), dead(3), { kind: 'ignore' }],
    ['left@3, left@3', known('left', 3), dead(3, 'x'), { kind: 'ignore' }],
    ['dead@3, dead@4', known('dead', 3), dead(4), { kind: 'apply', state: 'dead' }],
    // A force-leave is a dead from the member itself at the incarnation it died at (Serf handleNodeLeaveIntent: failed -> left).
    ['dead@3, force-leave@3 (failed -> left)', known('dead', 3), dead(3, 'x'), { kind: 'apply', state: 'left' }],
    ['suspect@3, force-leave@3 (a holder that had not seen the death yet)', known('suspect', 3), dead(3, 'x'), { kind: 'apply', state: 'left' }],
    ['dead@4, force-leave@3 (an older life)', known('dead', 4), dead(3, 'x'), { kind: 'ignore' }],
    ['dead@3, force-leave@4 (a later life left)', known('dead', 3), dead(4, 'x'), { kind: 'apply', state: 'left' }],
    ['left@3, dead@4 (a later life died)', known('left', 3), dead(4), { kind: 'apply', state: 'dead' }],
  ] as const)('%s -> %j', (_, current, update, decision) => {
    expect(decideDead(update, current, ctx)).toEqual(decision);
  });
  it('about ourselves: refute, unless we are leaving', () => {
    expect(decideDead(dead(5, 'y', 'me'), known('alive', 5), ctx).kind).toBe('refute');
    expect(decideDead(dead(4, 'y', 'me'), known('alive', 5), ctx).kind).toBe('ignore');
    expect(decideDead(dead(5, 'me', 'me'), known('left', 5), { ...ctx, leaving: true }).kind).toBe('ignore');
    // A forged force-leave of us (a dead from ourselves we never sent) is refuted like any accusation.
    expect(decideDead(dead(5, 'me', 'me'), known('alive', 5), ctx).kind).toBe('refute');
  });
});

describe('refutingIncarnation (memberlist refute)', () => {
  it.each([
    [1, 1, 2],
    [5, 3, 6],
    [5, 9, 10],
    [MAX_INCARNATION - 1, 3, MAX_INCARNATION],
    [5, MAX_INCARNATION - 1, MAX_INCARNATION],
  ])('own %i, accused at %i -> %i', (own, accused, next) => {
    expect(refutingIncarnation(own, accused)).toBe(next);
  });
  it.each([
    [MAX_INCARNATION, 3],
    [5, MAX_INCARNATION],
  ])('own %i, accused at %i: exhausted (undefined), never past the uint32 the wire carries', (own, accused) => {
    expect(refutingIncarnation(own, accused)).toBeUndefined();
  });
});

describe('the incarnation jump bound (maxIncarnationJump)', () => {
  const alive = (incarnation: number) => ({ incarnation, address: 'a:1', meta, node: 'b' });
  const held = known('alive', 10);
  const far = 10 + 65_536 + 1;
  it.each([
    ['alive', () => decideAlive(alive(far), held, ctx)],
    ['suspect', () => decideSuspect({ incarnation: far, node: 'b' }, held, ctx)],
    ['dead', () => decideDead({ incarnation: far, node: 'b', from: 'c' }, held, ctx)],
    ['left', () => decideDead({ incarnation: far, node: 'b', from: 'b' }, held, ctx)],
    ['suspect about us', () => decideSuspect({ incarnation: far, node: 'me' }, held, ctx)],
    ['dead about us', () => decideDead({ incarnation: far, node: 'me', from: 'c' }, held, ctx)],
    ['alive about us', () => decideAlive({ ...alive(far), node: 'me' }, held, ctx)],
    ['suspect at the top of the range', () => decideSuspect({ incarnation: MAX_INCARNATION, node: 'b' }, held, ctx)],
  ])('%s far above the incarnation held is implausible', (_, decide) => {
    expect(decide().kind).toBe('implausible');
  });
  it('a jump of exactly the bound is taken', () => {
    expect(decideSuspect({ incarnation: 10 + 65_536, node: 'b' }, held, ctx).kind).toBe('suspect');
  });
  it('an unknown member may arrive at any incarnation', () => {
    expect(decideAlive(alive(MAX_INCARNATION), undefined, ctx).kind).toBe('create');
  });
  it('0 turns the bound off', () => {
    expect(decideSuspect({ incarnation: far, node: 'b' }, held, { ...ctx, maxIncarnationJump: 0 }).kind).toBe('suspect');
  });
});
