import { describe, expect, it } from 'vitest';
import type { Member } from '@swim/runtime';
import { Simulation, type SimEvent } from '../src/index.js';

const N = 100;

/** Updates waiting in a member's gossip queue (its broadcast_queue_messages gauge). */
function queued(member: Member): number {
  const family = member.metrics().families.find((f) => f.name === 'broadcast_queue_messages');
  if (family === undefined) throw new Error('no broadcast_queue_messages gauge');
  return family.samples[0]!.value;
}

function nothingQueued(sim: Simulation): boolean {
  return sim.members().every((m) => queued(m) === 0);
}

/** What each member holds about every member, in a comparable form. */
function tables(sim: Simulation): string[][] {
  return sim.members().map((m) =>
    m
      .allMembers()
      .map((v) => `${v.name} ${v.address} ${v.incarnation} ${v.state}`)
      .sort(),
  );
}

/** Converged, then run until no member has anything left to gossip; returns the events seen. */
function steady(seed: number, form: (sim: Simulation) => void): { sim: Simulation; events: SimEvent[]; convergedAt: number } {
  const sim = new Simulation({ seed });
  const events: SimEvent[] = [];
  sim.onEvent((e) => events.push(e));
  form(sim);
  sim.runUntil(() => sim.converged(), 60_000, 10);
  const convergedAt = sim.now;
  sim.runUntil(() => nothingQueued(sim), 120_000, 1_000);
  return { sim, events, convergedAt };
}

describe('Simulation.formCluster', () => {
  it(`gives the steady state of a cluster formed by joins: every member sees every other alive, nothing queued (${N} members)`, () => {
    const formed = steady(1, (sim) => sim.formCluster(N));
    const joined = steady(1, (sim) => sim.startCluster(N));

    expect(formed.sim.members().length).toBe(N);
    expect(formed.sim.failures).toEqual([]);
    // Everyone holds everyone from the start: converged before any time runs.
    expect(formed.convergedAt).toBe(0);
    for (const member of formed.sim.members()) {
      const alive = member.members().filter((v) => v.state === 'alive');
      expect(alive.length, member.name).toBe(N);
      expect(member.allMembers().length, `${member.name}: no member other than the ${N}`).toBe(N);
    }
    expect(formed.events.filter((e) => e.kind !== 'join'), 'no suspicion, death or refutation').toEqual([]);
    expect(formed.events.length, 'each member saw each other join once').toBe(N * (N - 1));
    // Same names, addresses, incarnations and states as a cluster that formed by joining n0.
    expect(tables(formed.sim)).toEqual(tables(joined.sim));

    // And it stays so: nothing further to gossip, no suspicion, as long as the network is healthy.
    formed.sim.runFor(30_000);
    expect(formed.sim.converged()).toBe(true);
    expect(nothingQueued(formed.sim)).toBe(true);
    expect(formed.events.filter((e) => e.kind !== 'join')).toEqual([]);
  });

  it('is deterministic: the same seed gives the same events and traffic', () => {
    const run = (seed: number) => {
      const { sim, events } = steady(seed, (s) => s.formCluster(50));
      sim.crash('n7');
      sim.runFor(30_000);
      return { events: events.map((e) => `${e.at} ${e.observer} ${e.kind} ${e.subject} ${e.incarnation}`), counters: sim.network.counters };
    };
    const a = run(5);
    expect(a.events.some((e) => e.includes(' dead n7 '))).toBe(true);
    expect(run(5)).toEqual(a);
    expect(run(6).events).not.toEqual(a.events);
  });

  it("gossips no member of the formed cluster: only each member's own alive, queued at its start, goes out", () => {
    const sim = new Simulation({ seed: 3 });
    sim.formCluster(200);
    sim.runUntil(() => nothingQueued(sim), 60_000, 1_000);
    // Each member's own alive goes out retransmitLimit (4 × ceil(log10 201) = 12) times, beside a
    // ping and an ack per member per second; joins would re-gossip 200 × 199 updates 12 times each.
    const messages = sim.members().reduce((sum, m) => sum + m.counters.messagesIn, 0);
    const ownAlives = 200 * 4 * Math.ceil(Math.log10(201));
    const probes = 200 * 2 * (Math.floor(sim.now / 1_000) + 1); // rounds at 0, 1 s, …
    expect(sim.converged()).toBe(true);
    expect(messages, `seed ${sim.seed}, ${sim.now} ms`).toBeLessThanOrEqual(ownAlives + probes);
  });

  it('takes a newcomer through an ordinary join: every member of the formed cluster learns it', () => {
    const sim = new Simulation({ seed: 4 });
    sim.formCluster(60);
    sim.addMember('late');
    sim.join('late', ['n0']);
    sim.runUntil(() => sim.converged(), 30_000, 100);
    expect(sim.allSee('late', 'alive')).toBe(true);
    expect(sim.member('late').members().filter((v) => v.state === 'alive')).toHaveLength(61);
    expect(sim.failures).toEqual([]);
  });
});
