import { describe, expect, it } from 'vitest';
import { createRng, selectRelays, type RelayCandidate } from '../src/index.js';

const member = (name: string, alive = true, protocolMax = 5) => ({ name, alive, protocolMax });

describe('selectRelays (serf query.go relayResponse, kRandomMembers)', () => {
  const cluster = [member('self'), member('asker'), member('a'), member('b'), member('c'), member('dead', false)];

  it('picks relayFactor distinct alive members, never us nor the asker', () => {
    for (let seed = 0; seed < 200; seed++) {
      const relays = selectRelays(createRng(seed), cluster, { relayFactor: 2, self: 'self', querier: 'asker' });
      expect(relays).toHaveLength(2);
      expect(new Set(relays.map((m) => m.name)).size).toBe(2);
      for (const relay of relays) expect(['a', 'b', 'c']).toContain(relay.name);
    }
  });

  it('gives fewer when fewer are eligible, and finds the only one every time', () => {
    const small = [member('self'), member('asker'), member('only'), member('gone', false)];
    for (let seed = 0; seed < 100; seed++) {
      expect(selectRelays(createRng(seed), small, { relayFactor: 3, self: 'self', querier: 'asker' }).map((m) => m.name)).toEqual(['only']);
    }
  });

  it('relays nothing for a factor of 0, or with fewer than factor + 1 members known (dead ones count)', () => {
    const rng = createRng(1);
    expect(selectRelays(rng, cluster, { relayFactor: 0, self: 'self', querier: 'asker' })).toEqual([]);
    // Six members known: a factor of 5 is worth it, 6 is not.
    expect(selectRelays(rng, cluster, { relayFactor: 5, self: 'self', querier: 'asker' })).toHaveLength(3);
    expect(selectRelays(rng, cluster, { relayFactor: 6, self: 'self', querier: 'asker' })).toEqual([]);
  });

  it.each([-1, 1.5, 256, Number.NaN, Number.POSITIVE_INFINITY])('relays nothing for a factor of %s (not a uint8)', (relayFactor) => {
    expect(selectRelays(createRng(1), cluster, { relayFactor, self: 'self', querier: 'asker' })).toEqual([]);
  });

  it("applies the wire's own rule: Serf relays only through members with ProtocolMax >= 5", () => {
    const mixed = [member('self'), member('asker'), member('old', true, 4), member('new', true, 5), member('x'), member('y')];
    for (let seed = 0; seed < 50; seed++) {
      const relays = selectRelays(createRng(seed), mixed, { relayFactor: 4, self: 'self', querier: 'asker' }, (m) => m.protocolMax >= 5);
      expect(relays.map((m) => m.name).sort()).toEqual(['new', 'x', 'y']);
    }
  });

  it('is uniform over the eligible members (roughly, over many seeds)', () => {
    const counts = new Map<string, number>();
    const rng = createRng(7);
    for (let i = 0; i < 3000; i++) {
      for (const m of selectRelays<RelayCandidate>(rng, cluster, { relayFactor: 1, self: 'self', querier: 'asker' })) {
        counts.set(m.name, (counts.get(m.name) ?? 0) + 1);
      }
    }
    expect([...counts.keys()].sort()).toEqual(['a', 'b', 'c']);
    for (const n of counts.values()) expect(n).toBeGreaterThan(850);
  });
});
