import { describe, expect, it } from 'vitest';
import { introduce } from './harness/introduce.js';
import { decodePacket, encodePacket, phiThresholdDeviations, SwimCore, type Effect, type ProbeEffect, type SwimConfig } from '../src/index.js';

const OTHERS = ['a', 'b', 'c', 'd', 'e', 'f'];
const Z4 = phiThresholdDeviations(4);

/**
 * One core and a scripted network: every ping to member m is acked by m after `rtt(m, n)` ms
 * (n = how many pings m has had), or never when that is undefined. Nothing else answers, so a
 * ping-req goes unanswered. Deliveries and the core's deadlines run in time order.
 */
class Driver {
  readonly core: SwimCore;
  readonly log: Array<{ at: number; effect: Effect }> = [];
  readonly #pending: Array<{ at: number; from: string; bytes: Uint8Array }> = [];
  readonly #pings = new Map<string, number>();
  now = 0;

  constructor(
    config: Partial<SwimConfig>,
    readonly rtt: (member: string, n: number) => number | undefined,
  ) {
    this.core = new SwimCore({ name: 'me', address: 'me:1', config, seed: 3, now: 0 });
    this.#handle(introduce(this.core, OTHERS.map((name) => ({ name })), 0).effects);
  }

  run(until: number): void {
    for (;;) {
      const deadline = this.core.nextDeadline();
      this.#pending.sort((x, y) => x.at - y.at);
      const delivery = this.#pending[0];
      const next = Math.min(deadline ?? Infinity, delivery?.at ?? Infinity);
      if (next > until) break;
      this.now = next;
      if (delivery !== undefined && delivery.at === next) {
        this.#pending.shift();
        this.#handle(this.core.receivePacket(delivery.from, delivery.bytes, next));
      } else {
        this.#handle(this.core.tick(next));
      }
    }
    this.now = until;
  }

  receive(from: string, bytes: Uint8Array): void {
    this.#handle(this.core.receivePacket(from, bytes, this.now));
  }

  probes(target?: string): Array<{ at: number; effect: ProbeEffect }> {
    return this.log.filter(
      (e): e is { at: number; effect: ProbeEffect } => e.effect.type === 'probe' && (target === undefined || e.effect.target === target),
    );
  }

  /** When ping-reqs about `target` were sent. */
  pingReqTimes(target: string): number[] {
    const times: number[] = [];
    for (const { at, effect } of this.log) {
      if (effect.type !== 'send-packet') continue;
      const decoded = decodePacket(effect.bytes);
      if (decoded.ok && decoded.messages.some((m) => m.type === 'ping-req' && m.target === target)) times.push(at);
    }
    return [...new Set(times)];
  }

  #handle(effects: Effect[]): void {
    for (const effect of effects) {
      this.log.push({ at: this.now, effect });
      if (effect.type !== 'send-packet') continue;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) continue;
      for (const m of decoded.messages) {
        if (m.type !== 'ping' || m.target + ':1' !== effect.to) continue;
        const n = this.#pings.get(m.target) ?? 0;
        this.#pings.set(m.target, n + 1);
        const delay = this.rtt(m.target, n);
        if (delay !== undefined) this.#pending.push({ at: this.now + delay, from: effect.to, bytes: encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]) });
      }
    }
  }
}

const ADAPTIVE: Partial<SwimConfig> = { probeTimeoutMode: 'adaptive', adaptiveTimeoutMinSamples: 3, adaptiveTimeoutWindow: 8 };

describe('adaptive probe timeout through the prober', () => {
  it('waits probeTimeoutMs until a member has minSamples RTTs, then mean + z·max(std, floor) of its own RTTs', () => {
    // a answers in 150 ms, b in 40 ms, the rest in 10 ms.
    const d = new Driver(ADAPTIVE, (m) => (m === 'a' ? 150 : m === 'b' ? 40 : 10));
    d.run(60_000);
    const a = d.probes('a');
    expect(a.length).toBeGreaterThanOrEqual(6);
    expect(a.map((p) => p.effect.rttMs)).toEqual(a.map(() => 150));
    // The first three probes of a use the fixed 500 ms, then a's history: 150 + 3.72 × 20 (std floor).
    expect(a.slice(0, 3).map((p) => p.effect.timeoutMs)).toEqual([500, 500, 500]);
    for (const p of a.slice(3)) expect(p.effect.timeoutMs).toBeCloseTo(150 + Z4 * 20, 9);
    // b's history is b's own; the 10 ms members are held up at the 100 ms floor.
    expect(d.probes('b').slice(3).every((p) => Math.abs(p.effect.timeoutMs - (40 + Z4 * 20)) < 1e-9)).toBe(true);
    expect(d.probes('c').slice(3).every((p) => p.effect.timeoutMs === 100)).toBe(true);
    expect(d.core.probeTimeoutFor('a')).toBeCloseTo(150 + Z4 * 20, 9);
    expect(d.core.probeTimeoutFor('c')).toBe(100);
    expect(d.core.counters.adaptiveProbes).toBe(d.probes().filter((p) => p.effect.timeoutMs !== 500).length);
    expect(d.core.counters.indirectProbes).toBe(0); // every ack came within its wait
  });

  it('starts the indirect phase at the adaptive wait, and learns a late direct ack', () => {
    // a answers in 100 ms for its first four pings, then in 400 ms: past its wait (about 174 ms),
    // but before the probe ends, so the probe still succeeds directly.
    const d = new Driver(ADAPTIVE, (m, n) => (m === 'a' ? (n < 4 ? 100 : 400) : 10));
    d.run(60_000);
    const a = d.probes('a');
    const slow = a[4]!;
    const wait = 100 + Z4 * 20;
    expect(slow.effect.timeoutMs).toBeCloseTo(wait, 9);
    expect(slow.effect).toMatchObject({ ok: true, via: 'direct', rttMs: 400 });
    const sentAt = slow.at - 400;
    expect(d.pingReqTimes('a')).toContainEqual(expect.closeTo(sentAt + wait, 9));
    // The late RTT is learned: the wait for a grows (mean and spread of 100,100,100,100,400).
    const next = a[5]!.effect.timeoutMs;
    expect(next).toBeGreaterThan(wait);
    const mean = (4 * 100 + 400) / 5;
    const std = Math.sqrt((4 * 100 ** 2 + 400 ** 2) / 5 - mean ** 2);
    expect(next).toBeCloseTo(Math.min(500, mean + Z4 * std), 9);
  });

  it('is clamped to the ceiling however slow the member is', () => {
    const d = new Driver({ ...ADAPTIVE, adaptiveTimeoutCeilingMs: 300 }, (m, n) => (m === 'a' ? 200 + (n % 2) * 150 : 10));
    d.run(60_000);
    const adaptive = d.probes('a').slice(3);
    expect(adaptive.length).toBeGreaterThan(2);
    for (const p of adaptive) expect(p.effect.timeoutMs).toBe(300);
  });

  it('forgets a member’s RTTs when it is declared dead or leaves', () => {
    const d = new Driver(ADAPTIVE, () => 50);
    d.run(40_000);
    const learned = 50 + Z4 * 20;
    for (const m of ['a', 'b', 'c']) expect(d.core.probeTimeoutFor(m)).toBeCloseTo(learned, 9);
    d.receive('c:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'a', from: 'c' }]));
    expect(d.core.member('a')?.state).toBe('dead');
    expect(d.core.probeTimeoutFor('a')).toBe(500);
    d.receive('b:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'b', from: 'b' }])); // a graceful leave
    expect(d.core.member('b')?.state).toBe('left');
    expect(d.core.probeTimeoutFor('b')).toBe(500);
    expect(d.core.probeTimeoutFor('c')).toBeCloseTo(learned, 9);
    // Back at a new incarnation, a starts from the fixed timeout again.
    d.receive('a:1', encodePacket([{ type: 'alive', incarnation: 2, node: 'a', address: 'a:1', meta: new Uint8Array(0) }]));
    expect(d.core.member('a')?.state).toBe('alive');
    expect(d.core.probeTimeoutFor('a')).toBe(500);
  });

  it('fixed mode waits probeTimeoutMs for everyone and keeps no RTTs', () => {
    const d = new Driver({ adaptiveTimeoutMinSamples: 3 }, () => 10);
    d.run(40_000);
    expect(d.probes().length).toBeGreaterThan(30);
    expect(d.probes().every((p) => p.effect.timeoutMs === 500 && p.effect.rttMs === 10)).toBe(true);
    expect(d.core.probeTimeoutFor('a')).toBe(500);
    expect(d.core.counters.adaptiveProbes).toBe(0);
  });

  it('replays exactly: the same inputs give the same effects', () => {
    const run = () => {
      const d = new Driver(ADAPTIVE, (m, n) => (m === 'a' ? 80 + ((n * 37) % 90) : 12));
      d.run(50_000);
      return d.probes().map((p) => [p.at, p.effect.target, p.effect.timeoutMs, p.effect.rttMs]);
    };
    expect(run()).toEqual(run());
  });
});
