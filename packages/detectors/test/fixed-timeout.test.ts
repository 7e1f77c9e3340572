import { describe, expect, it } from 'vitest';
import { DetectorOptionsError, FixedTimeout } from '../src/index.js';

describe('FixedTimeout', () => {
  it('the horizon is the timeout, whatever the history', () => {
    const d = new FixedTimeout({ timeoutMs: 2500 });
    expect(d.kind).toBe('fixed-timeout');
    expect(d.horizon()).toBe(2500);
    for (const at of [0, 100, 5000, 5010]) d.heartbeat(at);
    expect(d.horizon()).toBe(2500);
    expect(d.deadline()).toBe(7510);
  });

  it('its level is silence / timeout, with threshold 1 at the timeout', () => {
    const d = new FixedTimeout({ timeoutMs: 2000 });
    d.heartbeat(1000);
    expect(d.threshold).toBe(1);
    expect(d.phi(1000)).toBe(0);
    expect(d.phi(2000)).toBe(0.5);
    expect(d.phi(3000)).toBe(1);
    expect(d.phi(1000 + d.horizon())).toBe(d.threshold);
    expect(d.phi(5000)).toBe(2);
    expect(d.phi(500)).toBe(0); // a time before the heartbeat is no silence
  });

  it('suspects from the timeout on, not before', () => {
    const d = new FixedTimeout({ timeoutMs: 2500 });
    d.heartbeat(1000);
    expect(d.isAvailable(3499.999)).toBe(true);
    expect(d.isAvailable(3500)).toBe(false);
  });

  it('does not suspect a member never heard from; ignores older heartbeats; resets', () => {
    const d = new FixedTimeout({ timeoutMs: 1000 });
    expect(d.phi(1e9)).toBe(0);
    expect(d.isAvailable(1e9)).toBe(true);
    expect(d.deadline()).toBeUndefined();
    d.heartbeat(5000);
    d.heartbeat(4000);
    expect(d.lastHeartbeat).toBe(5000);
    d.reset();
    expect(d.lastHeartbeat).toBeUndefined();
    expect(() => d.heartbeat(Number.NaN)).toThrow(RangeError);
  });

  it('rejects a timeout that is not a positive finite number', () => {
    expect(() => new FixedTimeout({ timeoutMs: 0 })).toThrow(DetectorOptionsError);
    expect(() => new FixedTimeout({ timeoutMs: Number.POSITIVE_INFINITY })).toThrow(DetectorOptionsError);
  });
});
