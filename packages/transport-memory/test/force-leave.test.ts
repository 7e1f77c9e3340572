import { describe, expect, it } from 'vitest';
import { encodePacket } from '@swim/core';
import { Simulation, type SimEvent } from '../src/index.js';

/**
 * `member.forceLeave` in a simulated cluster (Serf's `force-leave`): a crashed member, force-left
 * from one member, is left on every member and nobody reconnects to it; live members are not
 * affected, and a forged force-leave of a live member does not stick (it refutes).
 */
describe('force-leave in a cluster', () => {
  it.each([11, 12])('a crashed member force-left from one member is left on all, and never reconnected (seed %i)', (seed) => {
    const sim = new Simulation({ seed });
    sim.startCluster(6);
    sim.runUntil(() => sim.converged(), 30_000);
    const events: SimEvent[] = [];
    sim.onEvent((event) => events.push(event));
    sim.crash('n5');
    sim.runUntil(() => sim.allSee('n5', 'dead'), 60_000);
    // Dead, not yet reaped: every member would try to reconnect to it (Serf reconnect).
    expect(sim.member('n1').nextReconnect()?.candidates, `seed ${seed}`).toBe(1);

    expect(sim.member('n0').forceLeave('n5'), `seed ${seed}`).toBe(true);
    expect(sim.stateOf('n0', 'n5'), `seed ${seed}`).toBe('left');
    sim.runUntil(() => sim.allSee('n5', 'left'), 10_000);
    const live = ['n0', 'n1', 'n2', 'n3', 'n4'];
    for (const name of live) {
      expect(sim.member(name).nextReconnect()?.candidates, `seed ${seed}: ${name} reconnects to nobody`).toBe(0);
      const leftEvents = events.filter((e) => e.observer === name && e.subject === 'n5' && e.kind === 'left');
      expect(leftEvents.length, `seed ${seed}: ${name} reported n5 left once`).toBe(1);
    }
    const attempts = () => sim.liveMembers().reduce((sum, m) => sum + m.counters.reconnectAttempts, 0);
    const before = attempts();
    // Well past many reconnect intervals (30 s), the reap of the left member and its reconnect timeout window.
    sim.runFor(300_000);
    expect(attempts(), `seed ${seed}: no reconnect to the force-left member`).toBe(before);
    // Nobody else was touched: the live members are alive everywhere, and n5 is gone or left everywhere.
    expect(sim.converged(), `seed ${seed}`).toBe(true);
    for (const name of live) expect(['left', undefined], `seed ${seed}: ${name}`).toContain(sim.stateOf(name, 'n5'));
    expect(events.filter((e) => live.includes(e.subject) && e.kind !== 'alive' && e.kind !== 'suspect'), `seed ${seed}`).toEqual([]);
  });

  it('without the force-leave, the same crash is reconnected to (the test can tell)', () => {
    const sim = new Simulation({ seed: 11 });
    sim.startCluster(6);
    sim.runUntil(() => sim.converged(), 30_000);
    sim.crash('n5');
    sim.runUntil(() => sim.allSee('n5', 'dead'), 60_000);
    const attempts = () => sim.liveMembers().reduce((sum, m) => sum + m.counters.reconnectAttempts, 0);
    const before = attempts();
    sim.runFor(300_000);
    expect(attempts(), 'seed 11').toBeGreaterThan(before);
  });

  it('force-leave of a live member changes nothing, and a forged one (its leave sent by someone else) is refuted (seed 13)', () => {
    const sim = new Simulation({ seed: 13 });
    sim.startCluster(5);
    sim.runUntil(() => sim.converged(), 30_000);
    expect(sim.member('n0').forceLeave('n2'), 'seed 13').toBe(false);
    expect(sim.member('n0').forceLeave('nobody'), 'seed 13: unknown names are no error').toBe(false);
    expect(sim.member('n0').counters.forceLeavesIgnored, 'seed 13').toBe(1);
    expect(() => sim.member('n0').forceLeave(''), 'seed 13').toThrow(RangeError);
    sim.runFor(5_000);
    expect(sim.allSee('n2', 'alive'), 'seed 13').toBe(true);

    // A forger sends n0 a leave of n2 at n2's incarnation, as a force-leave on the wire would be.
    const incarnation = sim.member('n2').incarnation;
    const forger = sim.network.transport('forger');
    forger.sendPacket(sim.addressOf('n0'), encodePacket([{ type: 'dead', incarnation, node: 'n2', from: 'n2' }]));
    sim.runUntil(() => sim.stateOf('n0', 'n2') === 'left', 1_000, 1);
    // The leave spreads, reaches n2, which refutes above it: everyone holds n2 alive again.
    sim.runUntil(() => sim.member('n2').incarnation > incarnation && sim.allSee('n2', 'alive'), 30_000);
    expect(sim.member('n2').counters.refutations, 'seed 13').toBeGreaterThan(0);
    expect(sim.stateOf('n2', 'n2'), 'seed 13').toBe('alive');
    expect(sim.converged(), 'seed 13').toBe(true);
  });
});
