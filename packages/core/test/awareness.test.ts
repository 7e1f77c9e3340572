import { describe, expect, it } from 'vitest';
import { Awareness, HEALTH_DELTA, failedProbeDelta } from '../src/lifeguard/awareness.js';

describe('Awareness (memberlist awareness.go)', () => {
  it('starts healthy', () => {
    const a = new Awareness(8);
    expect(a.score).toBe(0);
    expect(a.maxMultiplier).toBe(8);
    expect(a.scaleTimeout(1000)).toBe(1000);
  });

  it('applies deltas and reports whether the score changed', () => {
    const a = new Awareness(8);
    expect(a.applyDelta(HEALTH_DELTA.probeFailedNoNackPeers)).toBe(true);
    expect(a.score).toBe(1);
    expect(a.applyDelta(3)).toBe(true);
    expect(a.score).toBe(4);
    expect(a.applyDelta(HEALTH_DELTA.probeSucceeded)).toBe(true);
    expect(a.score).toBe(3);
    expect(a.applyDelta(0)).toBe(false);
    expect(a.score).toBe(3);
  });

  it('clamps at 0', () => {
    const a = new Awareness(8);
    expect(a.applyDelta(HEALTH_DELTA.probeSucceeded)).toBe(false);
    expect(a.score).toBe(0);
    a.applyDelta(2);
    expect(a.applyDelta(-10)).toBe(true);
    expect(a.score).toBe(0);
  });

  it('clamps at max − 1', () => {
    const a = new Awareness(8);
    expect(a.applyDelta(100)).toBe(true);
    expect(a.score).toBe(7);
    expect(a.applyDelta(HEALTH_DELTA.refuted)).toBe(false);
    expect(a.score).toBe(7);
  });

  it('max multiplier 1 keeps the score at 0 (awareness effectively off)', () => {
    const a = new Awareness(1);
    expect(a.applyDelta(5)).toBe(false);
    expect(a.score).toBe(0);
    expect(a.scaleTimeout(500)).toBe(500);
  });

  it('scaleTimeout is ms × (score + 1), up to 8× at LAN defaults', () => {
    const a = new Awareness(8);
    a.applyDelta(2);
    expect(a.scaleTimeout(1000)).toBe(3000);
    a.applyDelta(99);
    expect(a.scaleTimeout(1000)).toBe(8000);
  });

  it('rejects invalid max multipliers and non-integer deltas', () => {
    expect(() => new Awareness(0)).toThrow(RangeError);
    expect(() => new Awareness(2.5)).toThrow(RangeError);
    expect(() => new Awareness(Number.NaN)).toThrow(RangeError);
    expect(() => new Awareness(8).applyDelta(0.5)).toThrow(RangeError);
  });
});

describe('HEALTH_DELTA (memberlist probeNode / refute)', () => {
  it('has memberlist values', () => {
    expect(HEALTH_DELTA).toEqual({ probeSucceeded: -1, probeFailedNoNackPeers: 1, refuted: 1, lateCall: 1 }); // lateCall: ours (lifeguard/late-tick.ts)
  });
});

describe('failedProbeDelta (memberlist probeNode step 12)', () => {
  it.each([
    // [expected nacks, received, delta]
    [3, 0, 3],
    [3, 1, 2],
    [3, 2, 1],
    [3, 3, 0],
    [1, 0, 1],
    [0, 0, 1], // no nack-capable helper (or no helper at all) → +1
  ])('expected %i nacks, received %i → %i', (expected, received, delta) => {
    expect(failedProbeDelta(expected, received)).toBe(delta);
  });

  it('never goes negative when more nacks than expected were counted', () => {
    expect(failedProbeDelta(2, 5)).toBe(0);
  });
});
