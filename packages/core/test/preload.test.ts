import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, type Effect, type PreloadedMember } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * The `preload` input: members of a cluster that formed before this core started, held alive
 * without gossip (the pre-formed clusters of the simulator, Simulation.formCluster).
 */
const peers = (n: number): PreloadedMember[] => Array.from({ length: n }, (_, i) => ({ name: `p${i}`, address: `p${i}:1`, incarnation: i % 3 }));

const joins = (effects: readonly Effect[]) => effects.filter((e) => e.type === 'member' && e.event === 'join').map((e) => (e.type === 'member' ? e.member.name : ''));

/** Every update a packet carries, by type and node (pings and acks carry none). */
function updatesIn(effects: readonly Effect[]): string[] {
  const updates: string[] = [];
  for (const effect of effects) {
    if (effect.type !== 'send-packet') continue;
    const decoded = decodePacket(effect.bytes);
    if (!decoded.ok) continue;
    for (const m of decoded.messages) if (m.type === 'alive' || m.type === 'suspect' || m.type === 'dead') updates.push(`${m.type} ${m.node}`);
  }
  return updates;
}

describe('preload', () => {
  it('holds every member alive at its incarnation, with one join event each, and queues nothing', () => {
    const node = new LoneCore({}, 7);
    // A new core has its own alive queued (memberlist setAlive); preloading adds nothing to it.
    const queuedBefore = node.core.queuedBroadcasts;
    const members = peers(50);
    const effects = node.core.preload(members, 0);
    expect(joins(effects).sort()).toEqual(members.map((m) => m.name).sort());
    for (const m of members) {
      const view = node.core.member(m.name);
      expect(view, m.name).toMatchObject({ name: m.name, address: m.address, incarnation: m.incarnation, state: 'alive' });
    }
    expect(node.core.members()).toHaveLength(51);
    expect(node.core.queuedBroadcasts).toBe(queuedBefore);
  });

  it('gossips none of them: a minute of probing and gossip carries no update about a preloaded member', () => {
    const node = new LoneCore({}, 7);
    node.core.preload(peers(20), 0);
    const sent: Effect[] = [];
    // Every ping is acked, so nothing is ever suspected and no update has a reason to exist.
    node.advance(60_000, (effect, n) => {
      sent.push(effect);
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      for (const m of decoded.messages) if (m.type === 'ping') n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
    });
    const probed = new Set(sent.filter((e) => e.type === 'send-packet').map((e) => (e.type === 'send-packet' ? e.to : '')));
    // Probed like any member: all 20 in a minute of 1 s probe rounds.
    expect(probed.size).toBe(20);
    // Our own alive, queued at start, is the only update that goes out.
    expect(updatesIn(sent).filter((u) => u !== 'alive me')).toEqual([]);
  });

  it('skips ourselves and names already held, keeping what we know of them', () => {
    const node = new LoneCore({}, 3);
    node.introduce('p1');
    const before = node.core.member('p1')!;
    const ownIncarnation = node.core.incarnation;
    const effects = node.core.preload([{ name: 'me', address: 'me:1', incarnation: 9 }, { name: 'p1', address: 'p1:1', incarnation: 5 }, { name: 'p2', address: 'p2:1', incarnation: 0 }], node.now);
    expect(joins(effects)).toEqual(['p2']);
    expect(node.core.member('p1')).toEqual(before);
    expect(node.core.incarnation).toBe(ownIncarnation);
  });

  it('places preloaded members in the probe order from the seed: same seed, same order; another seed, another', () => {
    const order = (seed: number) => {
      const node = new LoneCore({}, seed);
      node.core.preload(peers(30), 0);
      const probed: string[] = [];
      node.advance(30_500, (effect) => {
        if (effect.type === 'send-packet') probed.push(effect.to);
      });
      return probed;
    };
    expect(order(11)).toEqual(order(11));
    expect(order(11)).not.toEqual(order(12));
  });

  it('lists every problem of a bad input and changes nothing', () => {
    const node = new LoneCore({ metaMaxBytes: 4 }, 1);
    const bad = [
      { name: '', address: 'a:1', incarnation: 0 },
      { name: 'b', address: '', incarnation: 0 },
      { name: 'c', address: 'c:1', incarnation: -1 },
      { name: 'd', address: 'd:1', incarnation: 1.5 },
      { name: 'e', address: 'e:1', incarnation: 0, meta: new Uint8Array(5) },
      { name: 'f', address: 'f:1', incarnation: 0 },
      { name: 'f', address: 'f2:1', incarnation: 0 },
      { name: 'g', address: 'f:1', incarnation: 0 },
      { name: 'h', address: 'me:1', incarnation: 0 },
      null,
    ] as unknown as PreloadedMember[];
    let message = '';
    try {
      node.core.preload(bad, 0);
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      message = (error as Error).message;
    }
    for (const expected of [
      'members[0].name must be a non-empty string',
      'members[1].address must be a non-empty string',
      'members[2].incarnation must be an integer',
      'members[3].incarnation must be an integer',
      'members[4].meta is 5 bytes; at most 4',
      'members[6].name f is listed twice',
      "members[7].address f:1 is also f's",
      'members[8].address me:1 is held by a member we know',
      'members[9] must be an object',
    ]) {
      expect(message).toContain(expected);
    }
    expect(node.core.members()).toHaveLength(1);
    expect(node.core.counters.internalErrors).toBe(1);
  });

  it('refuses more members than maxMembers, before adding any', () => {
    const node = new LoneCore({ maxMembers: 10 }, 1);
    expect(() => node.core.preload(peers(10), 0)).toThrow(/10 new members would make 11, more than maxMembers 10/);
    expect(node.core.members()).toHaveLength(1);
    expect(joins(node.core.preload(peers(9), 0))).toHaveLength(9);
  });

  it('spreads the first push-pulls of members preloaded together over the interval for the size they hold', () => {
    // 1,000 members: pushPullScale makes the 30 s base interval 180 s. Drawn at construction for a
    // cluster of one, every first push-pull would fall within the first 30 s, and in the same 30 s
    // of every 180 s after it.
    const firsts: number[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const node = new LoneCore({ probeIntervalMs: 600_000 }, seed);
      node.core.preload(peers(999), 0);
      let first: number | undefined;
      node.advance(200_000, (effect, n) => {
        if (effect.type === 'stream-request' && effect.purpose === 'push-pull') first ??= n.now;
      });
      expect(first, `seed ${seed}: a push-pull within one interval`).toBeDefined();
      firsts.push(first!);
    }
    expect(Math.max(...firsts), 'the latest first push-pull of 40 members').toBeGreaterThan(90_000);
    expect(firsts.filter((t) => t < 30_000).length, 'first push-pulls within the base interval, of 40').toBeLessThan(20);
  });
});
