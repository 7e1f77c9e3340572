// SerfLayer on a whole cluster in the deterministic simulator: every member speaks memberlist's
// wire and runs the Serf layer, so intents and user events travel as Serf's user messages do.
import { Simulation } from '@swim/transport-memory';
import { describe, expect, it } from 'vitest';
import { memberlistCodec, SerfLayer, type SerfUserEvent } from '../../src/index.js';

const N = 8;

function cluster(seed: number) {
  const sim = new Simulation({ seed, addresses: 'ip', codec: () => memberlistCodec() });
  const members = sim.startCluster(N);
  const layers = new Map(members.map((member) => [member.name, new SerfLayer(member, { clock: sim.clock })]));
  sim.runUntil(() => sim.converged(), 30_000);
  return { sim, layers };
}

/** Run virtual time in steps, letting promise continuations (the layer's awaits) run between them. */
async function runFor(sim: Simulation, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    sim.runFor(50);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('SerfLayer in a simulated memberlist-wire cluster', () => {
  it.each([1, 2])('a leave goes out as a leave intent, then memberlist leave: everyone sees left, the intent counted once each (seed %i)', async (seed) => {
    const { sim, layers } = cluster(seed);
    const leaving = layers.get('n3')!.leave();
    await runFor(sim, 3_000);
    expect((await leaving).spread, `seed ${seed}`).toBe(true);
    for (const [name, layer] of layers) {
      if (name === 'n3') continue;
      expect(sim.member(name).member('n3')?.state, `seed ${seed}, ${name}`).toBe('left');
      expect(layer.counters.leaveIntents, `seed ${seed}, ${name}: new intents handled`).toBe(1);
      expect(layer.membershipTime, `seed ${seed}, ${name}: the intent's time was witnessed`).toBeGreaterThan(0);
    }
  });

  it.each([1, 2])('a user event reaches every member exactly once, copies counted as duplicates (seed %i)', async (seed) => {
    const { sim, layers } = cluster(seed);
    const received = new Map<string, SerfUserEvent[]>();
    for (const [name, layer] of layers) layer.on('user-event', (event) => received.set(name, [...(received.get(name) ?? []), event]));
    layers.get('n0')!.sendEvent('deploy', new TextEncoder().encode('v2'), { coalesce: false });
    await runFor(sim, 5_000);
    for (const name of layers.keys()) {
      if (name === 'n0') {
        expect(received.get(name), `seed ${seed}: the sender does not hear its own event`).toBeUndefined();
        continue;
      }
      expect(received.get(name)?.map((e) => [e.name, new TextDecoder().decode(e.payload), e.ltime]), `seed ${seed}, ${name}`).toEqual([['deploy', 'v2', 1]]);
    }
    const duplicates = [...layers.values()].reduce((sum, layer) => sum + layer.counters.duplicates, 0);
    expect(duplicates, `seed ${seed}: gossip delivers copies (members pass events on, as Serf does)`).toBeGreaterThan(0);
  });

  it('refuses a user event larger than Serf sends, before anything is queued', () => {
    const { layers } = cluster(3);
    expect(() => layers.get('n1')!.sendEvent('big', new Uint8Array(600))).toThrow(/at most 512 bytes/);
  });

  it('clocks: what a restarted member restores (Serf snapshot clocks), each witnessed; the next event is stamped above it', async () => {
    const { sim, layers } = cluster(4);
    const n0 = layers.get('n0')!;
    for (let i = 0; i < 3; i++) n0.sendEvent(`e${i}`, new Uint8Array(0));
    await runFor(sim, 3_000);
    const saved = layers.get('n1')!.clocks;
    expect(saved.eventClock, 'n1 witnessed the three events').toBeGreaterThanOrEqual(3);
    // A new layer over the same member, as a restart would build one: it starts from the saved clocks.
    // One layer per member (it answers Serf's internal queries): the old one goes first.
    layers.get('n2')!.close();
    const restored = new SerfLayer(sim.member('n2'), { clock: sim.clock, clocks: saved });
    expect(restored.clocks).toEqual({ clock: saved.clock + 1, eventClock: saved.eventClock + 1, queryClock: saved.queryClock + 1 });
    const stamped: number[] = [];
    layers.get('n3')!.on('user-event', (event) => stamped.push(event.ltime));
    restored.sendEvent('after-restart', new Uint8Array(0));
    await runFor(sim, 3_000);
    expect(stamped[0], 'stamped above every event seen before the restart').toBeGreaterThan(saved.eventClock);
    for (const bad of [{ clock: -1, eventClock: 0, queryClock: 0 }, { clock: 0, eventClock: 1.5, queryClock: Number.NaN }]) {
      expect(() => new SerfLayer(sim.member('n4'), { clocks: bad })).toThrow(RangeError);
    }
    expect(() => new SerfLayer(sim.member('n4'), { clocks: { clock: 0, eventClock: 1.5, queryClock: Number.NaN } })).toThrow('clocks: eventClock must be a non-negative safe integer, got 1.5; queryClock must be a non-negative safe integer, got NaN');
  });
});
