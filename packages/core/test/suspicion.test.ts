import { describe, expect, it } from 'vitest';
import { Suspicion, type SuspicionParams } from '../src/lifeguard/suspicion.js';

// LAN profile at n = 100 (memberlist remainingSuspicionTime): min 8 s, max 48 s, k = 2.
const lan: SuspicionParams = { k: 2, minMs: 8_000, maxMs: 48_000, overdueGraceMs: 0, healthScaling: 'off' };

describe('Suspicion: Lifeguard timeout (memberlist suspicion.go)', () => {
  it('starts at max when confirmations are wanted, at min when k = 0', () => {
    expect(new Suspicion('a', lan, 1_000, 0).deadline).toBe(49_000);
    expect(new Suspicion('a', { ...lan, k: 0 }, 1_000, 0).deadline).toBe(9_000);
  });

  it('shrinks on the log scale with each distinct confirmation: 48 s, 22.762 s, 8 s', () => {
    const s = new Suspicion('a', lan, 0, 0);
    expect(s.confirm('b', 1_000)).toBe(true);
    expect(s.deadline).toBe(22_762);
    expect(s.confirm('c', 2_000)).toBe(true);
    expect(s.deadline).toBe(8_000);
    expect(s.confirmations).toBe(2);
  });

  it('ignores the originator, repeated confirmers and confirmations beyond k', () => {
    const s = new Suspicion('a', lan, 0, 0);
    expect(s.confirm('a', 1_000)).toBe(false);
    expect(s.confirm('b', 1_000)).toBe(true);
    expect(s.confirm('b', 1_500)).toBe(false);
    expect(s.confirm('c', 2_000)).toBe(true);
    expect(s.confirm('d', 2_500)).toBe(false);
    expect(s.confirmations).toBe(2);
  });

  it('k = 0 refuses every confirmation (memberlist Confirm)', () => {
    const s = new Suspicion('a', { ...lan, k: 0 }, 0, 0);
    expect(s.confirm('b', 100)).toBe(false);
  });

  it('without grace, an overdue confirmation fires on the spot (memberlist)', () => {
    const s = new Suspicion('a', lan, 0, 0);
    s.confirm('b', 9_000);
    s.confirm('c', 30_000); // min 8 s has long passed
    expect(s.deadline).toBe(30_000);
    expect(s.expire(30_000, 0)).toEqual({ kind: 'dead' });
  });
});

describe('correction 1: grace on overdue confirmations', () => {
  const grace = { ...lan, overdueGraceMs: 2_000 };
  it('waits the grace period instead of firing at once', () => {
    const s = new Suspicion('a', grace, 0, 0);
    s.confirm('b', 1_000); // due at 22.762 s
    s.confirm('c', 20_000); // min 8 s has passed: overdue
    expect(s.deadline).toBe(22_000);
  });
  it('never pushes a deadline that is sooner than the grace', () => {
    const s = new Suspicion('a', grace, 0, 0);
    s.confirm('b', 1_000); // due at 22.762 s
    s.confirm('c', 22_000);
    expect(s.deadline).toBe(22_762);
  });
  it('a confirmation that is not overdue is unaffected', () => {
    const s = new Suspicion('a', grace, 0, 0);
    s.confirm('b', 1_000);
    expect(s.deadline).toBe(22_762);
  });
  it('the grace window starts at the first overdue confirmation; later ones do not extend it', () => {
    const s = new Suspicion('a', { ...grace, k: 3 }, 0, 0);
    s.confirm('b', 40_000);
    s.confirm('c', 40_500);
    const first = s.deadline;
    s.confirm('d', 41_000);
    expect(first).toBe(42_000);
    expect(s.deadline).toBe(42_000);
  });
});

describe('correction 2: health scaling', () => {
  it('at-creation multiplies the timeout by (score + 1) read when the suspicion is created', () => {
    const s = new Suspicion('a', { ...lan, healthScaling: 'at-creation' }, 0, 3);
    expect(s.deadline).toBe(4 * 48_000);
    expect(s.expire(s.deadline, 0)).toEqual({ kind: 'dead' });
  });

  it('at-creation misses a penalty applied after creation (memberlist ordering, docs/corrections-study.md)', () => {
    const s = new Suspicion('a', { ...lan, healthScaling: 'at-creation' }, 0, 0);
    expect(s.deadline).toBe(48_000);
    expect(s.expire(48_000, 7)).toEqual({ kind: 'dead' });
  });

  it('at-expiry re-reads the score when the timer fires and re-arms for the difference', () => {
    const s = new Suspicion('a', { ...lan, healthScaling: 'at-expiry' }, 0, 0);
    expect(s.deadline).toBe(48_000);
    // Unhealthy at expiry: score 2 stretches the 48 s timeout to 144 s.
    expect(s.expire(48_000, 2)).toEqual({ kind: 'rearm', deadline: 144_000 });
    // Healthy again by then: death.
    expect(s.expire(144_000, 0)).toEqual({ kind: 'dead' });
  });

  it('at-expiry re-arms for at least the grace when the stretched timeout has nearly passed', () => {
    const s = new Suspicion('a', { ...lan, healthScaling: 'at-expiry', overdueGraceMs: 2_000 }, 0, 0);
    expect(s.expire(95_500, 1)).toEqual({ kind: 'rearm', deadline: 97_500 });
  });

  it('at-expiry also covers the overdue-confirmation path', () => {
    const s = new Suspicion('a', { ...lan, healthScaling: 'at-expiry' }, 0, 0);
    s.confirm('b', 9_000);
    s.confirm('c', 10_000); // total 8 s, overdue: due now
    expect(s.deadline).toBe(10_000);
    expect(s.expire(10_000, 7)).toEqual({ kind: 'rearm', deadline: 64_000 });
  });

  it('a healthy node (score 0) is never delayed', () => {
    const s = new Suspicion('a', { ...lan, healthScaling: 'at-expiry' }, 0, 0);
    expect(s.expire(48_000, 0)).toEqual({ kind: 'dead' });
  });
});
