// SerfLayer on a whole cluster in the deterministic simulator: every member speaks memberlist's
// wire and runs the Serf layer, so intents and user events travel as Serf's user messages do.
import { Simulation } from '@swim/transport-memory';
import { describe, expect, it } from 'vitest';
import { encodeLeaveIntent, memberlistCodec, SerfLayer, type SerfUserEvent } from '../../src/index.js';

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

describe('SerfLayer force-leave (serf force-leave, RemoveFailedNode / handleNodeLeaveIntent)', () => {
  /** The cluster with n7 crashed and held dead by everyone. */
  async function withCrashed(seed: number) {
    const { sim, layers } = cluster(seed);
    sim.crash('n7');
    layers.get('n7')!.close();
    layers.delete('n7');
    sim.runUntil(() => sim.allSee('n7', 'dead'), 60_000);
    return { sim, layers };
  }

  it.each([4, 5])('a leave intent for a dead node: every member marks it left, each takes the intent once (seed %i)', async (seed) => {
    const { sim, layers } = await withCrashed(seed);
    expect(layers.get('n0')!.forceLeave('n7'), `seed ${seed}`).toBe(true);
    await runFor(sim, 3_000);
    for (const [name, layer] of layers) {
      expect(sim.member(name).member('n7')?.state, `seed ${seed}, ${name}`).toBe('left');
      expect(sim.member(name).nextReconnect()?.candidates, `seed ${seed}, ${name}`).toBe(0);
      if (name !== 'n0') expect(layer.counters.leaveIntents, `seed ${seed}, ${name}`).toBe(1);
    }
  });

  it('with prune, every member forgets the node at once (seed 6)', async () => {
    const { sim, layers } = await withCrashed(6);
    layers.get('n0')!.forceLeave('n7', { prune: true });
    await runFor(sim, 3_000);
    for (const name of layers.keys()) expect(sim.member(name).member('n7'), `seed 6, ${name}`).toBeUndefined();
    expect(sim.converged(), 'seed 6').toBe(true);
  });

  it('a leave intent alone (as a Serf agent sends it) makes the members that hold the node dead mark it left (seed 7)', async () => {
    const { sim, layers } = await withCrashed(7);
    // What `serf force-leave n7` on a Serf agent broadcasts: no memberlist dead message from n7, only the intent.
    sim.member('n3').broadcast('serf:intent:n7', encodeLeaveIntent(layers.get('n3')!.membershipTime + 5, 'n7'));
    await runFor(sim, 3_000);
    for (const name of layers.keys()) expect(sim.member(name).member('n7')?.state, `seed 7, ${name}`).toBe('left');
  });

  it('a force-leave of a live node changes nothing: it refutes the intent with a join intent (seed 8)', async () => {
    const { sim, layers } = cluster(8);
    const incarnation = sim.member('n2').incarnation;
    expect(layers.get('n0')!.forceLeave('n2'), 'seed 8').toBe(false);
    await runFor(sim, 3_000);
    expect(layers.get('n2')!.counters.refutedLeaveIntents, 'seed 8').toBe(1);
    expect(sim.allSee('n2', 'alive'), 'seed 8').toBe(true);
    expect(sim.member('n2').incarnation, 'seed 8: no memberlist-level accusation was made').toBe(incarnation);
    for (const [name, layer] of layers) {
      if (name !== 'n2') expect(layer.counters.joinIntents, `seed 8, ${name}: the refuting join intent`).toBeGreaterThan(0);
    }
  });
});
