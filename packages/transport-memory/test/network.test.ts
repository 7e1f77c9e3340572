import type { StreamResult } from '@swim/runtime';
import { createRng } from '@swim/core';
import { describe, expect, it } from 'vitest';
import {
  constantLatency,
  logNormalLatency,
  MemoryNetwork,
  uniformLatency,
  VirtualClock,
  type LatencyModel,
  type MemoryTransport,
} from '../src/index.js';

const SEED = 42;
const LATENCY = 5;

/** A network on virtual time with named, listening endpoints that log what they receive. */
function world(options: { seed?: number; latency?: LatencyModel; maxPacketBytes?: number } = {}) {
  const seed = options.seed ?? SEED;
  const clock = new VirtualClock();
  const network = new MemoryNetwork({
    scheduler: clock,
    seed,
    latency: options.latency ?? constantLatency(LATENCY),
    ...(options.maxPacketBytes === undefined ? {} : { maxPacketBytes: options.maxPacketBytes }),
  });
  const received = new Map<string, Array<{ at: number; from: string; text: string }>>();
  const endpoints = new Map<string, MemoryTransport>();
  const node = (address: string, reply: (text: string) => string | undefined | 'never' = (t) => `re:${t}`) => {
    const transport = network.transport(address);
    const inbox: Array<{ at: number; from: string; text: string }> = [];
    received.set(address, inbox);
    endpoints.set(address, transport);
    transport.listen({
      packet: (from, bytes) => inbox.push({ at: clock.now(), from, text: text(bytes) }),
      stream: (_from, bytes, answer) => {
        const r = reply(text(bytes));
        if (r !== 'never') answer(r === undefined ? undefined : encode(r));
      },
    });
    return transport;
  };
  const send = (from: string, to: string, message: string) => endpoints.get(from)!.sendPacket(to, encode(message));
  const texts = (address: string) => received.get(address)!.map((p) => p.text);
  const request = (from: string, to: string, message: string, timeoutMs = 1000, expectReply = true) => {
    const outcome: { at?: number; result?: StreamResult; calls: number } = { calls: 0 };
    endpoints.get(from)!.request(to, encode(message), { timeoutMs, expectReply }, (result) => {
      outcome.calls++;
      outcome.at = clock.now();
      outcome.result = result;
    });
    return outcome;
  };
  const endpointClose = (address: string) => endpoints.get(address)!.close();
  return { seed, clock, network, node, send, texts, received, request, endpointClose };
}

function encode(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function text(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : new TextDecoder().decode(bytes);
}

describe('MemoryNetwork delivery', () => {
  it('delivers after the latency, asynchronously, with the sender address', () => {
    const w = world();
    w.node('a');
    w.node('b');
    w.send('a', 'b', 'hi');
    expect(w.texts('b'), `seed ${w.seed}`).toEqual([]);
    w.clock.runFor(LATENCY - 0.5);
    expect(w.texts('b'), `seed ${w.seed}`).toEqual([]);
    w.clock.runFor(0.5);
    expect(w.received.get('b'), `seed ${w.seed}`).toEqual([{ at: LATENCY, from: 'a', text: 'hi' }]);
    const c = w.network.counters;
    expect([c.packetsSent, c.packetsDelivered, c.packetsDropped, c.bytesSent, c.bytesDelivered], `seed ${w.seed}`).toEqual([1, 1, 0, 2, 2]);
  });

  it('drops packets larger than maxPacketBytes and counts them; exactly the limit passes', () => {
    const w = world({ maxPacketBytes: 600 });
    const a = w.node('a');
    w.node('b');
    a.sendPacket('b', new Uint8Array(600));
    a.sendPacket('b', new Uint8Array(601));
    w.clock.runFor(100);
    expect(w.received.get('b')!.length, `seed ${w.seed}`).toBe(1);
    expect(w.network.counters.dropped.oversize, `seed ${w.seed}`).toBe(1);
  });

  it('drops packets to unknown, not listening or closed addresses without throwing', async () => {
    const w = world();
    const a = w.node('a');
    const deaf = w.network.transport('deaf');
    const b = w.node('b');
    await b.close();
    a.sendPacket('nowhere', encode('x'));
    a.sendPacket('deaf', encode('x'));
    a.sendPacket('b', encode('x'));
    w.clock.runFor(100);
    expect(w.network.counters.dropped.unreachable, `seed ${w.seed}`).toBe(3);
    expect(w.texts('b'), `seed ${w.seed}`).toEqual([]);
    expect(deaf.closed).toBe(false);
  });

  it('refuses a second transport at an address in use, and allows it once closed', async () => {
    const w = world();
    const a = w.node('a');
    expect(() => w.network.transport('a')).toThrow(/in use/);
    await a.close();
    expect(w.network.transport('a').address).toBe('a');
  });

  it('streams: request and reply take one latency each; expectReply false completes after one round trip', () => {
    const w = world();
    w.node('a');
    w.node('b');
    const withReply = w.request('a', 'b', 'q');
    const oneWay = w.request('a', 'b', 'note', 1000, false);
    w.clock.runFor(1000);
    expect(withReply, `seed ${w.seed}`).toEqual({ calls: 1, at: 2 * LATENCY, result: { ok: true, bytes: encode('re:q') } });
    expect(oneWay, `seed ${w.seed}`).toEqual({ calls: 1, at: 2 * LATENCY, result: { ok: true, bytes: undefined } });
    const c = w.network.counters;
    expect([c.streamsOpened, c.streamsOk, c.streamsFailed], `seed ${w.seed}`).toEqual([2, 2, 0]);
  });

  it('streams: a peer closing without a reply fails the request', () => {
    const w = world();
    w.node('a');
    w.node('b', () => undefined);
    const call = w.request('a', 'b', 'q');
    w.clock.runFor(100);
    expect(call.result, `seed ${w.seed}`).toEqual({ ok: false, reason: 'closed without reply' });
  });

  it('the same seed gives the same delivery times; another seed gives others', () => {
    const trace = (seed: number) => {
      const w = world({ seed, latency: uniformLatency(1, 50) });
      w.node('a');
      w.node('b');
      for (let i = 0; i < 50; i++) w.send('a', 'b', `m${i}`);
      w.clock.runFor(100);
      return w.received.get('b')!.map((p) => `${p.text}@${p.at}`);
    };
    expect(trace(1), 'seed 1 twice').toEqual(trace(1));
    expect(trace(1), 'seeds 1 and 2').not.toEqual(trace(2));
    // With jitter, packets overtake each other.
    expect(trace(1).map((t) => t.split('@')[0]), 'seed 1').not.toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
  });
});

describe('MemoryNetwork faults', () => {
  it('setLoss drops about the given fraction of packets (fixed seed) and never a stream', () => {
    const w = world();
    w.node('a');
    w.node('b');
    w.network.setLoss(0.3);
    const n = 10_000;
    for (let i = 0; i < n; i++) w.send('a', 'b', 'x');
    const streams = Array.from({ length: 100 }, () => w.request('a', 'b', 'q'));
    w.clock.runFor(1000);
    const lost = w.network.counters.dropped.loss;
    expect(lost / n, `seed ${w.seed}: ${lost} of ${n} lost`).toBeGreaterThan(0.28);
    expect(lost / n, `seed ${w.seed}: ${lost} of ${n} lost`).toBeLessThan(0.32);
    expect(w.received.get('b')!.length, `seed ${w.seed}`).toBe(n - lost);
    expect(streams.every((s) => s.result?.ok === true), `seed ${w.seed}: streams are never dropped`).toBe(true);
    w.network.setLoss(0);
    w.send('a', 'b', 'after');
    w.clock.runFor(100);
    expect(w.texts('b').at(-1), `seed ${w.seed}`).toBe('after');
  });

  it('setLinkLoss drops one direction only', () => {
    const w = world();
    w.node('a');
    w.node('b');
    w.node('c');
    w.network.setLinkLoss('a', 'b', 1);
    for (let i = 0; i < 20; i++) {
      w.send('a', 'b', 'a->b');
      w.send('b', 'a', 'b->a');
      w.send('a', 'c', 'a->c');
    }
    w.clock.runFor(100);
    expect(w.texts('b').length, `seed ${w.seed}`).toBe(0);
    expect(w.texts('a').length, `seed ${w.seed}`).toBe(20);
    expect(w.texts('c').length, `seed ${w.seed}`).toBe(20);
    expect(w.network.counters.dropped['link-loss'], `seed ${w.seed}`).toBe(20);
    w.network.setLinkLoss('a', 'b', 0);
    w.send('a', 'b', 'healed');
    w.clock.runFor(100);
    expect(w.texts('b'), `seed ${w.seed}`).toEqual(['healed']);
  });

  it('partition drops packets across, keeps them within, hangs streams across until their timeout; heal restores', () => {
    const w = world();
    for (const n of ['a1', 'a2', 'b1', 'b2']) w.node(n);
    w.network.partition(['a1', 'a2'], ['b1', 'b2']);
    w.send('a1', 'b1', 'across');
    w.send('b2', 'a2', 'across back');
    w.send('a1', 'a2', 'within');
    w.send('b1', 'b2', 'within');
    const across = w.request('a1', 'b1', 'q', 300);
    const within = w.request('a1', 'a2', 'q', 300);
    w.clock.runFor(299);
    expect(across.calls, `seed ${w.seed}: the stream hangs`).toBe(0);
    w.clock.runFor(1);
    expect(across, `seed ${w.seed}`).toEqual({ calls: 1, at: 300, result: { ok: false, reason: 'timed out after 300 ms' } });
    expect(within.result?.ok, `seed ${w.seed}`).toBe(true);
    expect([w.texts('b1'), w.texts('a2'), w.texts('b2')], `seed ${w.seed}`).toEqual([[], ['within'], ['within']]);
    expect(w.network.counters.dropped.partition, `seed ${w.seed}`).toBe(2);
    w.network.heal();
    w.send('a1', 'b1', 'healed');
    const after = w.request('a1', 'b1', 'q', 300);
    w.clock.runFor(100);
    expect(w.texts('b1'), `seed ${w.seed}`).toEqual(['healed']);
    expect(after.result?.ok, `seed ${w.seed}`).toBe(true);
  });

  it('a partition that starts while a packet is in flight catches it', () => {
    const w = world();
    w.node('a');
    w.node('b');
    w.send('a', 'b', 'in flight');
    w.clock.runFor(LATENCY / 2);
    w.network.partition(['a'], ['b']);
    w.clock.runFor(LATENCY);
    expect(w.texts('b'), `seed ${w.seed}`).toEqual([]);
  });

  it('crash is permanent: packets to it are dropped, streams to it refused after one latency, it receives nothing', () => {
    const w = world();
    w.node('a');
    w.node('b');
    w.send('a', 'b', 'in flight');
    w.network.crash('b');
    w.send('a', 'b', 'after');
    const call = w.request('a', 'b', 'q', 1000);
    w.clock.runFor(1000);
    expect(w.texts('b'), `seed ${w.seed}`).toEqual([]);
    expect(w.network.counters.dropped.crashed, `seed ${w.seed}`).toBe(2);
    expect(call, `seed ${w.seed}`).toEqual({ calls: 1, at: LATENCY, result: { ok: false, reason: 'connection refused' } });
    expect(w.network.isCrashed('b'), `seed ${w.seed}`).toBe(true);
  });

  it('crash of a requester: its pending requests end unheard', () => {
    const w = world();
    w.node('a');
    w.node('b');
    const call = w.request('a', 'b', 'q', 1000);
    w.network.crash('a');
    w.clock.runFor(2000);
    expect(call.calls, `seed ${w.seed}`).toBe(0);
  });

  it('pause queues packets and hands them over in order on resume; streams to it fail at their timeout', () => {
    const w = world({ latency: uniformLatency(1, 10) });
    w.node('a');
    w.node('p');
    w.network.pause('p');
    for (let i = 0; i < 10; i++) {
      w.send('a', 'p', `m${i}`);
      w.clock.runFor(20); // spaced wider than the jitter, so the arrival order is the send order
    }
    const call = w.request('a', 'p', 'q', 500);
    w.clock.runFor(1000);
    expect(w.texts('p'), `seed ${w.seed}`).toEqual([]);
    expect(call.calls, `seed ${w.seed}`).toBe(1);
    expect(call.result?.ok, `seed ${w.seed}`).toBe(false);
    expect(call.at, `seed ${w.seed}: fails at the timeout`).toBe(200 + 500);
    expect(w.network.isPaused('p'), `seed ${w.seed}`).toBe(true);
    const resumedAt = w.clock.now();
    w.network.resume('p');
    expect(w.texts('p'), `seed ${w.seed}: not synchronously inside resume`).toEqual([]);
    w.clock.runFor(0);
    expect(w.texts('p'), `seed ${w.seed}`).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(w.received.get('p')!.every((p) => p.at === resumedAt), `seed ${w.seed}`).toBe(true);
  });

  it('pause holds the outcome of the paused member’s own requests until it resumes', () => {
    const w = world();
    w.node('p');
    w.node('b');
    const call = w.request('p', 'b', 'q', 1000);
    w.network.pause('p');
    w.clock.runFor(500);
    expect(call.calls, `seed ${w.seed}: the reply waits`).toBe(0);
    w.network.resume('p');
    w.clock.runFor(0);
    expect(call, `seed ${w.seed}`).toEqual({ calls: 1, at: 500, result: { ok: true, bytes: encode('re:q') } });
  });

  describe('blackout (docs/corrections-study.md)', () => {
    it('holds packets both ways and delivers them when it ends, each after a fresh latency', () => {
      const w = world();
      for (const n of ['x', 'a', 'b']) w.node(n);
      w.network.blackout(['x']);
      w.send('a', 'x', 'to x');
      w.send('x', 'b', 'from x');
      w.send('a', 'b', 'unrelated');
      w.clock.runFor(10_000);
      expect([w.texts('x'), w.texts('b')], `seed ${w.seed}`).toEqual([[], ['unrelated']]);
      expect(w.network.counters.packetsHeld, `seed ${w.seed}`).toBe(2);
      expect(w.network.isBlackedOut('x'), `seed ${w.seed}`).toBe(true);
      w.network.endBlackout(['x']);
      w.clock.runFor(LATENCY - 0.5);
      expect(w.texts('x'), `seed ${w.seed}: a fresh latency after the end`).toEqual([]);
      w.clock.runFor(0.5);
      expect(w.received.get('x'), `seed ${w.seed}`).toEqual([{ at: 10_000 + LATENCY, from: 'a', text: 'to x' }]);
      expect(w.texts('b'), `seed ${w.seed}`).toEqual(['unrelated', 'from x']);
      const c = w.network.counters;
      expect([c.packetsHeld, c.packetsDropped, c.packetsDelivered], `seed ${w.seed}: nothing lost`).toEqual([0, 0, 3]);
    });

    it('holds a packet already in flight when the blackout starts', () => {
      const w = world();
      w.node('a');
      w.node('x');
      w.send('a', 'x', 'in flight');
      w.clock.runFor(1);
      w.network.blackout(['x']);
      w.clock.runFor(1000);
      expect(w.texts('x'), `seed ${w.seed}`).toEqual([]);
      w.network.endBlackout();
      w.clock.runFor(LATENCY);
      expect(w.texts('x'), `seed ${w.seed}`).toEqual(['in flight']);
    });

    it('between two blacked-out members, releases packets only when both are out', () => {
      const w = world();
      w.node('x');
      w.node('y');
      w.network.blackout(['x', 'y']);
      w.send('x', 'y', 'x->y');
      w.network.endBlackout(['x']);
      w.clock.runFor(100);
      expect(w.texts('y'), `seed ${w.seed}`).toEqual([]);
      w.network.endBlackout(['y']);
      w.clock.runFor(100);
      expect(w.texts('y'), `seed ${w.seed}`).toEqual(['x->y']);
    });

    it('streams to and from a blacked-out member hang until their timeout and fail', () => {
      const w = world();
      for (const n of ['x', 'a']) w.node(n);
      w.network.blackout(['x']);
      const toX = w.request('a', 'x', 'q', 700);
      const fromX = w.request('x', 'a', 'q', 900);
      w.clock.runFor(699);
      expect([toX.calls, fromX.calls], `seed ${w.seed}`).toEqual([0, 0]);
      w.clock.runFor(1);
      expect(toX, `seed ${w.seed}`).toEqual({ calls: 1, at: 700, result: { ok: false, reason: 'timed out after 700 ms' } });
      w.clock.runFor(200);
      expect(fromX, `seed ${w.seed}`).toEqual({ calls: 1, at: 900, result: { ok: false, reason: 'timed out after 900 ms' } });
      // The stream was not merely delayed: ending the blackout does not deliver it.
      w.network.endBlackout();
      w.clock.runFor(1000);
      expect([toX.calls, fromX.calls], `seed ${w.seed}`).toEqual([1, 1]);
      expect(w.network.counters.streamsFailed, `seed ${w.seed}`).toBe(2);
    });

    it('a reply cut off by a blackout that starts mid-stream fails at the timeout', () => {
      const w = world();
      w.node('a');
      w.node('x');
      const call = w.request('a', 'x', 'q', 500);
      w.clock.runFor(LATENCY); // the request reached x, the reply is on its way
      w.network.blackout(['x']);
      w.clock.runFor(1000);
      expect(call, `seed ${w.seed}`).toEqual({ calls: 1, at: 500, result: { ok: false, reason: 'timed out after 500 ms' } });
    });

    it('the member keeps its own timers: only the network is cut', () => {
      // Nothing to freeze in the network itself; a blacked-out member's timers are its clock's business.
      const w = world();
      w.node('x');
      w.network.blackout(['x']);
      let fired = 0;
      w.clock.timer(() => fired++).arm(50);
      w.clock.runFor(100);
      expect(fired, `seed ${w.seed}`).toBe(1);
    });
  });
});

describe('nothing left armed', () => {
  // With realScheduler, an armed timeout keeps a Node process alive: a stream that ended must not
  // leave its timeout behind, or a program exits only when the longest one (10 s for a push-pull)
  // runs out after every member closed. On virtual time the same shows as `clock.pending`.
  it('an answered request cancels its timeout', () => {
    const w = world();
    w.node('a');
    w.node('b');
    const call = w.request('a', 'b', 'q', 10_000);
    w.clock.runFor(2 * LATENCY);
    expect(call.result?.ok, `seed ${w.seed}`).toBe(true);
    expect(w.clock.pending, `seed ${w.seed}`).toBe(0);
  });

  it('a refused or unanswered request cancels its timeout', () => {
    const w = world();
    w.node('a');
    w.node('b', () => undefined);
    const refused = w.request('a', 'nobody', 'q', 10_000);
    const unanswered = w.request('a', 'b', 'q', 10_000);
    w.clock.runFor(2 * LATENCY);
    expect([refused.result?.ok, unanswered.result?.ok], `seed ${w.seed}`).toEqual([false, false]);
    expect(w.clock.pending, `seed ${w.seed}`).toBe(0);
  });

  it('closing or crashing a requester cancels the timeouts of its requests; only deliveries in flight remain, due within one latency', async () => {
    const w = world();
    w.node('a');
    w.node('b', () => 'never');
    w.node('c');
    const closed = w.request('a', 'b', 'q', 10_000);
    const crashed = w.request('c', 'b', 'q', 10_000);
    await w.endpointClose('a');
    w.network.crash('c');
    w.clock.runFor(LATENCY);
    expect(closed.result, `seed ${w.seed}`).toEqual({ ok: false, reason: 'transport closed' });
    expect(crashed.calls, `seed ${w.seed}`).toBe(0);
    expect(w.clock.pending, `seed ${w.seed}`).toBe(0);
  });

  it('a server that closes while serving resets the stream, and the requester’s timeout is cancelled', async () => {
    const w = world();
    w.node('a');
    w.node('b', () => 'never');
    const call = w.request('a', 'b', 'q', 10_000);
    w.clock.runFor(LATENCY); // b has the request
    await w.endpointClose('b');
    w.clock.runFor(LATENCY);
    expect(call.result, `seed ${w.seed}`).toEqual({ ok: false, reason: 'connection reset by peer' });
    expect(w.clock.pending, `seed ${w.seed}`).toBe(0);
  });
});

describe('latency models', () => {
  it('constant, uniform and log-normal draw within their bounds, deterministically', () => {
    const draw = (model: LatencyModel, seed = 1) => {
      const rng = createRng(seed);
      return Array.from({ length: 2000 }, () => model(rng, 'a:1', 'b:1'));
    };
    expect(new Set(draw(constantLatency(3)))).toEqual(new Set([3]));
    const uniform = draw(uniformLatency(2, 4));
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...uniform)).toBeLessThan(4);
    const logNormal = draw(logNormalLatency({ medianMs: 10, sigma: 0.5, capMs: 40 }));
    const sorted = [...logNormal].sort((a, b) => a - b);
    const median = sorted[sorted.length / 2]!;
    expect(median, 'seed 1').toBeGreaterThan(9);
    expect(median, 'seed 1').toBeLessThan(11);
    expect(Math.max(...logNormal), 'seed 1: the cap holds').toBeLessThanOrEqual(40);
    expect(Math.min(...logNormal), 'seed 1').toBeGreaterThan(0);
    expect(draw(logNormalLatency({ medianMs: 10, sigma: 0.5 }), 5), 'same seed').toEqual(draw(logNormalLatency({ medianMs: 10, sigma: 0.5 }), 5));
  });

  it('rejects nonsense parameters', () => {
    expect(() => constantLatency(-1)).toThrow(RangeError);
    expect(() => uniformLatency(5, 1)).toThrow(RangeError);
    expect(() => logNormalLatency({ medianMs: 0, sigma: 1 })).toThrow(RangeError);
    const w = world();
    expect(() => w.network.setLoss(1.5)).toThrow(RangeError);
  });
});
