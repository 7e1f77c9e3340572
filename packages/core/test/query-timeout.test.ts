import { describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_CONFIG, defaultQueryTimeoutMs, presets } from '../src/index.js';

describe('defaultQueryTimeoutMs (serf serf.go DefaultQueryTimeout)', () => {
  // GossipInterval × QueryTimeoutMult (16) × ceil(log10(n + 1)), n = memberlist NumMembers.
  // Hand-computed with Serf's LAN GossipInterval, 200 ms: 200 × 16 = 3,200 ms per decade.
  it.each([
    [1, 3_200],
    [3, 3_200], // seen live: Timeout 3,200,000,000 ns with three agents
    [9, 3_200], // log10(10) is exactly 1 in Go: not 2 decades
    [10, 6_400],
    [99, 6_400],
    [100, 9_600],
    [999, 9_600],
    [1000, 12_800],
    [9999, 12_800],
    [10_000, 16_000],
  ])('n = %i on LAN: %i ms', (n, ms) => {
    expect(defaultQueryTimeoutMs(200, n, 16)).toBe(ms);
  });

  it.each([
    ['local', 100, 1_600, 3_200, 4_800],
    ['lan', 200, 3_200, 6_400, 9_600],
    ['wan', 500, 8_000, 16_000, 24_000],
  ] as const)('our %s preset (gossip %i ms) gives Serf\'s profile: %i, %i, %i ms', (preset, gossipMs, one, ten, hundred) => {
    const { gossipIntervalMs } = presets[preset]();
    expect(gossipIntervalMs).toBe(gossipMs);
    const mult = DEFAULT_QUERY_CONFIG.queryTimeoutMult;
    expect([1, 10, 100].map((n) => defaultQueryTimeoutMs(gossipIntervalMs, n, mult))).toEqual([one, ten, hundred]);
  });

  it('multiplier defaults to 16', () => {
    expect(defaultQueryTimeoutMs(200, 5)).toBe(3_200);
    expect(defaultQueryTimeoutMs(200, 5, 4)).toBe(800);
  });

  it('counts fewer than one member as one: we are always a member (Go would give 0 s)', () => {
    for (const n of [0, -3, Number.NaN, 0.5]) expect(defaultQueryTimeoutMs(200, n)).toBe(3_200);
  });
});
