import { describe, expect, it } from 'vitest';
import { Simulation, type SimEvent } from '../src/index.js';

const SEEDS = [1, 2, 3];

function converged(seed: number, n = 8): { sim: Simulation; events: SimEvent[] } {
  const sim = new Simulation({ seed });
  const events: SimEvent[] = [];
  sim.onEvent((e) => events.push(e));
  sim.startCluster(n);
  sim.runUntil(() => sim.converged(), 30_000);
  return { sim, events };
}

describe('Simulation.restart', () => {
  it.each(SEEDS)('a crashed member comes back as a fresh process at the same address and is seen alive again (seed %i)', (seed) => {
    const { sim, events } = converged(seed);
    const old = sim.member('n3');
    sim.crash('n3');
    sim.runFor(2_000);
    const restartedAt = sim.now;
    const fresh = sim.restart('n3', { seeds: ['n0'] });
    expect(fresh, `seed ${seed}`).not.toBe(old);
    expect(sim.member('n3'), `seed ${seed}`).toBe(fresh);
    expect(fresh.address, `seed ${seed}`).toBe(old.address);
    expect(fresh.incarnation, `seed ${seed}: a new process starts at incarnation 1`).toBe(1);
    expect(fresh.members().map((m) => m.name), `seed ${seed}: it knows only itself before the join`).toEqual(['n3']);
    expect(sim.liveMembers(), `seed ${seed}`).toContain(fresh);
    expect(sim.members(), `seed ${seed}`).not.toContain(old);
    expect(sim.converged(), `seed ${seed}: the new process sees nobody yet`).toBe(false);
    sim.runUntil(() => sim.converged(), 30_000);
    expect(fresh.members().filter((m) => m.state === 'alive').length, `seed ${seed}`).toBe(8);
    expect(sim.failures, `seed ${seed}`).toEqual([]);
    // The new process's events are reported: it saw the others join after the restart.
    expect(new Set(events.filter((e) => e.observer === 'n3' && e.kind === 'join' && e.at >= restartedAt).map((e) => e.subject)).size, `seed ${seed}`).toBe(7);
  });

  it('the old process is gone: nothing it sent after the crash arrives, and its events are not reported', () => {
    const { sim, events } = converged(7);
    const old = sim.member('n2');
    sim.crash('n2');
    sim.restart('n2', { seeds: ['n1'] });
    const before = events.length;
    // The old process is closed; anything it emitted now would be reported under n2.
    old.dispatchEvent(new CustomEvent('change', { detail: { event: 'dead', member: { name: 'n5', state: 'dead', incarnation: 9 } } }));
    expect(events.length).toBe(before);
  });

  it('a member down longer than the suspicion timeout is held dead, then alive again after it restarts', () => {
    const seed = 11;
    const { sim } = converged(seed);
    sim.crash('n5');
    sim.runUntil(() => sim.allSee('n5', 'dead'), 60_000);
    const deadAt = sim.member('n0').member('n5')!.incarnation;
    sim.restart('n5', { seeds: ['n0'] });
    sim.runUntil(() => sim.converged(), 60_000);
    // It was told of its death (the seed's push-pull carries it) and refuted above it.
    expect(sim.member('n5').incarnation, `seed ${seed}`).toBeGreaterThan(deadAt);
    expect(sim.allSee('n5', 'alive'), `seed ${seed}`).toBe(true);
  });

  it('restarts are deterministic: a new seed per process, derived from the simulation seed', () => {
    const trace = (seed: number) => {
      const { sim, events } = converged(seed);
      sim.crash('n4');
      sim.runFor(3_000);
      sim.restart('n4', { seeds: ['n6'] });
      sim.runFor(20_000);
      sim.crash('n4');
      sim.runFor(1_000);
      sim.restart('n4', { seeds: ['n1'] });
      sim.runFor(20_000);
      return { events: events.map((e) => `${e.at} ${e.observer} ${e.kind} ${e.subject} ${e.incarnation}`), traffic: sim.network.counters };
    };
    const a = trace(5);
    expect(trace(5)).toEqual(a);
    expect(trace(6).events).not.toEqual(a.events);
  });

  it('refuses to restart a member that has not crashed, and an unknown one', () => {
    const { sim } = converged(3, 4);
    expect(() => sim.restart('n1')).toThrow(/n1 has not crashed \(seed 3\)/);
    sim.leave('n2');
    expect(() => sim.restart('n2')).toThrow(/has not crashed/);
    expect(() => sim.restart('n9')).toThrow(/no member n9 \(seed 3\)/);
  });

  it('preloads what it is given before it joins, and takes its own config overrides', () => {
    const { sim } = converged(4, 4);
    const entries = sim.liveMembers().map((m) => ({ name: m.name, address: m.address, incarnation: m.incarnation }));
    sim.crash('n3');
    const fresh = sim.restart('n3', { preload: entries.filter((e) => e.name !== 'n3'), config: { probeIntervalMs: 1500 } });
    expect(fresh.members().map((m) => m.name).sort()).toEqual(['n0', 'n1', 'n2', 'n3']);
    expect(fresh.config.probeIntervalMs).toBe(1500);
  });
});

describe('Simulation.restart from a snapshot', () => {
  it.each(SEEDS)('a member restarted with `restore` comes back above the incarnation it is held dead at, without refuting (seed %i)', (seed) => {
    const { sim } = converged(seed);
    const snapshot = sim.member('n6').snapshot();
    sim.crash('n6');
    sim.runUntil(() => sim.allSee('n6', 'dead'), 60_000);
    const deadAt = Math.max(...sim.liveMembers().map((m) => m.member('n6')!.incarnation));
    const fresh = sim.restart('n6', { restore: snapshot, seeds: ['n1'] });
    expect(fresh.incarnation, `seed ${seed}`).toBeGreaterThan(deadAt);
    expect(fresh.members().length, `seed ${seed}: the snapshot's members are preloaded`).toBe(8);
    sim.runUntil(() => sim.converged(), 10_000);
    expect(fresh.counters.refutations, `seed ${seed}`).toBe(0);
  });
});
