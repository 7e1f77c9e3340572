import { describe, expect, it } from 'vitest';
import { failureDetectionBoundMs, memberlistProfile, presets, swimCodec } from '@swim/core';
import { Simulation, type SimEvent } from '../src/index.js';

const N = 16;
const SEEDS = [1, 2, 3];

/** A 16-member cluster, converged; records every event from the start. */
function converged(seed: number, n = N): { sim: Simulation; events: SimEvent[] } {
  const sim = new Simulation({ seed });
  const events: SimEvent[] = [];
  sim.onEvent((e) => events.push(e));
  sim.startCluster(n);
  sim.runUntil(() => sim.converged(), 30_000);
  return { sim, events };
}

function deaths(events: readonly SimEvent[]): SimEvent[] {
  return events.filter((e) => e.kind === 'dead');
}

describe('Simulation', () => {
  it.each(SEEDS)('16 members converge from one seed member, with no suspicion on a healthy network (seed %i)', (seed) => {
    const { sim, events } = converged(seed);
    expect(sim.now, `seed ${seed}`).toBeLessThan(10_000);
    expect(sim.members().length, `seed ${seed}`).toBe(N);
    for (const member of sim.members()) {
      expect(member.members().filter((m) => m.state === 'alive').length, `seed ${seed}, ${member.name}`).toBe(N);
    }
    expect(sim.failures, `seed ${seed}`).toEqual([]);
    sim.runFor(60_000);
    expect(sim.converged(), `seed ${seed}`).toBe(true);
    expect(events.filter((e) => e.kind === 'suspect' || e.kind === 'dead'), `seed ${seed}`).toEqual([]);
    // Every member saw every other join.
    expect(events.filter((e) => e.kind === 'join').length, `seed ${seed}`).toBe(N * (N - 1));
  });

  it.each(SEEDS)('a crashed member is declared dead by every other member, and only it (seed %i)', (seed) => {
    const { sim, events } = converged(seed);
    sim.runFor(5_000);
    const crashedAt = sim.now;
    sim.crash('n7');
    expect(sim.converged(), `seed ${seed}: converged() only asks about live members`).toBe(true);
    expect(sim.allSee('n7', 'alive'), `seed ${seed}: nobody noticed yet`).toBe(true);
    // One probe pass (16 s at most), the suspicion max for n = 16 (6 x 4.8 s), and gossip.
    sim.runUntil(() => sim.allSee('n7', 'dead'), 60_000);
    expect(sim.converged(), `seed ${seed}`).toBe(true);
    const verdicts = deaths(events);
    expect(verdicts.every((e) => e.subject === 'n7' && e.at > crashedAt), `seed ${seed}: only n7 died`).toBe(true);
    expect(verdicts.some((e) => e.cause?.kind === 'timeout'), `seed ${seed}: someone's suspicion timed out`).toBe(true);
    expect(new Set(verdicts.map((e) => e.observer)).size, `seed ${seed}`).toBe(N - 1);
  });

  it.each(SEEDS)('a paused member is suspected, refutes on resume, and nobody declares it dead (seed %i)', (seed) => {
    const { sim, events } = converged(seed);
    sim.runFor(5_000);
    sim.pause('n5');
    const n5 = sim.member('n5');
    const suspectedAfter = sim.runUntil(() => events.some((e) => e.kind === 'suspect' && e.subject === 'n5'), 20_000);
    expect(suspectedAfter, `seed ${seed}`).toBeLessThan(20_000);
    // While paused its timers are frozen: it suspects nobody and sends nothing.
    const sentWhilePaused = n5.counters.packetsOut;
    sim.runFor(1_000);
    expect(n5.counters.packetsOut, `seed ${seed}`).toBe(sentWhilePaused);
    sim.resume('n5');
    sim.runUntil(() => sim.allSee('n5', 'alive'), 30_000);
    expect(n5.counters.refutations, `seed ${seed}`).toBeGreaterThan(0);
    expect(n5.incarnation, `seed ${seed}`).toBeGreaterThan(1);
    expect(deaths(events), `seed ${seed}`).toEqual([]);
    expect(events.some((e) => e.kind === 'alive' && e.subject === 'n5'), `seed ${seed}`).toBe(true);
  });

  it.each(SEEDS)('a member that leaves is seen as left by everyone, and no one dies (seed %i)', (seed) => {
    const { sim, events } = converged(seed);
    sim.leave('n3');
    sim.runUntil(() => sim.allSee('n3', 'left'), 30_000);
    expect(sim.converged(), `seed ${seed}: the others still see each other`).toBe(true);
    expect(deaths(events), `seed ${seed}: a leave is not a death`).toEqual([]);
    expect(new Set(events.filter((e) => e.kind === 'left' && e.subject === 'n3').map((e) => e.observer)).size, `seed ${seed}`).toBe(N);
    expect(sim.failures, `seed ${seed}`).toEqual([]);
  });

  it.each(SEEDS)('a short blackout: the member is suspected, held packets arrive after, nobody dies (seed %i)', (seed) => {
    const { sim, events } = converged(seed);
    sim.runFor(5_000);
    sim.blackout(['n9']);
    sim.runFor(4_000);
    // Its timers kept running: it probed, failed, and suspected others in silence.
    const suspectedByN9 = events.filter((e) => e.observer === 'n9' && e.kind === 'suspect');
    expect(suspectedByN9.length, `seed ${seed}`).toBeGreaterThan(0);
    expect(sim.network.counters.packetsHeld, `seed ${seed}`).toBeGreaterThan(0);
    sim.endBlackout();
    expect(sim.network.counters.packetsHeld, `seed ${seed}`).toBe(0);
    sim.runUntil(() => sim.converged(), 30_000);
    expect(deaths(events), `seed ${seed}`).toEqual([]);
  });

  it('a partition splits the views; after heal they merge again', () => {
    const seed = 4;
    const { sim } = converged(seed);
    const left = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'];
    const right = ['n8', 'n9', 'n10', 'n11', 'n12', 'n13', 'n14', 'n15'];
    sim.partition(left, right);
    sim.runUntil(() => sim.stateOf('n0', 'n15') === 'dead' && sim.stateOf('n15', 'n0') === 'dead', 120_000);
    sim.heal();
    // Dead members come back through push-pull (memberlist: periodic full state sync).
    sim.runUntil(() => sim.converged(), 300_000, 1_000);
    expect(sim.converged(), `seed ${seed}`).toBe(true);
  });

  it.each([7, 8])(
    'a partition long enough for both sides to reap each other heals by reconnect, and only with it (seed %i)',
    (seed) => {
      const left = ['n0', 'n1', 'n2', 'n3', 'n4'];
      const right = ['n5', 'n6', 'n7', 'n8', 'n9'];
      const runs = (['default', 'memberlist'] as const).map((profile) => {
        const sim = new Simulation({ seed, config: profile === 'memberlist' ? memberlistProfile(presets.lan()) : {} });
        sim.startCluster(10);
        sim.runUntil(() => sim.converged(), 30_000);
        sim.partition(left, right);
        // Past the suspicion timeouts and gossipToTheDeadMs (30 s): each side has reaped the other.
        sim.runFor(120_000);
        const forgotten = sim.member('n0').member('n9') === undefined && sim.member('n9').member('n0') === undefined;
        sim.heal();
        const healed = (() => {
          try {
            return sim.runUntil(() => sim.converged(), 300_000, 1_000);
          } catch {
            return undefined;
          }
        })();
        const attempts = sim.members().reduce((sum, m) => sum + m.counters.reconnectAttempts, 0);
        return { forgotten, healed, attempts };
      });
      const [ours, memberlist] = runs;
      expect(ours!.forgotten && memberlist!.forgotten, `seed ${seed}: both sides reaped the other`).toBe(true);
      // Serf-style reconnect: every failed member is tried about once per 30 s interval.
      expect(ours!.healed, `seed ${seed}: default heals`).toBeLessThan(90_000);
      expect(ours!.attempts, `seed ${seed}`).toBeGreaterThan(0);
      // memberlist alone never contacts a reaped member again: the halves stay apart.
      expect(memberlist!.healed, `seed ${seed}: memberlist profile stays split for 300 s`).toBeUndefined();
      expect(memberlist!.attempts, `seed ${seed}`).toBe(0);
    },
  );

  it('join with an unknown seed is recorded as a failure', async () => {
    const sim = new Simulation({ seed: 5 });
    sim.addMember('lonely');
    sim.join('lonely', ['nowhere:1']);
    sim.runFor(20_000);
    // The rejection reaches the simulation through promise continuations: let them all run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sim.failures.map((f) => [f.member, f.action]), 'seed 5').toEqual([['lonely', 'join']]);
  });

  it('startCluster names members n0..n(n-1) and joins them all through n0', () => {
    const sim = new Simulation({ seed: 6 });
    expect(sim.startCluster(4).map((m) => m.name), 'seed 6').toEqual(['n0', 'n1', 'n2', 'n3']);
    expect(sim.member('n2').address, 'seed 6').toBe(sim.addressOf('n2'));
    sim.runFor(1_000);
    expect(sim.member('n0').members().length, 'seed 6: n0 heard every join within the first second').toBe(4);
    expect(() => sim.addMember('n1'), 'seed 6').toThrow(/already exists/);
    expect(() => sim.member('n9'), 'seed 6').toThrow(/seed 6/);
  });

  it('with `addresses: ip` members get 10.x.y.z addresses in the order they are added, and a given codec each', () => {
    let codecs = 0;
    const sim = new Simulation({ seed: 7, addresses: 'ip', codec: () => (codecs++, swimCodec) });
    sim.startCluster(3);
    expect(['n0', 'n1', 'n2'].map((name) => sim.member(name).address), 'seed 7').toEqual(['10.0.0.1:7946', '10.0.0.2:7946', '10.0.0.3:7946']);
    expect(codecs, 'seed 7: one codec per member').toBe(3);
    sim.runUntil(() => sim.converged(), 10_000);
    expect(sim.converged(), 'seed 7').toBe(true);
  });

  describe('determinism', () => {
    const trace = (seed: number) => {
      const sim = new Simulation({ seed });
      const lines: string[] = [];
      sim.onEvent((e) => lines.push(`${e.at.toFixed(6)} ${e.observer} ${e.kind} ${e.subject} ${e.incarnation} ${e.cause?.kind ?? ''}`));
      sim.startCluster(8);
      sim.runFor(15_000);
      sim.setLoss(0.1);
      sim.crash('n2');
      sim.pause('n4');
      sim.runFor(3_000);
      sim.resume('n4');
      sim.blackout(['n6']);
      sim.runFor(5_000);
      sim.endBlackout(['n6']);
      sim.runFor(30_000);
      return { lines, counters: sim.network.counters };
    };

    it('the same seed replays the same event trace and traffic exactly', () => {
      const a = trace(11);
      const b = trace(11);
      expect(a.lines.length, 'seed 11').toBeGreaterThan(50);
      expect(b.lines, 'seed 11').toEqual(a.lines);
      expect(b.counters, 'seed 11').toEqual(a.counters);
    });

    it('another seed gives another run', () => {
      expect(trace(12).lines, 'seeds 11 and 12').not.toEqual(trace(11).lines);
    });
  });
});

describe('failureDetectionBoundMs holds in simulation', () => {
  it.each([
    [5, 'lan', 1],
    [5, 'local', 2],
    [16, 'lan', 3],
    [40, 'lan', 4],
    [40, 'wan', 5],
  ] as const)('%i members, %s preset: every survivor holds a crashed member dead within the bound (seed %i)', (n, preset, seed) => {
    const sim = new Simulation({ seed, preset });
    sim.startCluster(n);
    sim.runUntil(() => sim.converged(), 120_000);
    const bound = failureDetectionBoundMs(sim.member('n0').config, n);
    const slowest: number[] = [];
    for (const victim of ['n1', `n${n - 1}`]) {
      sim.runFor(7_000);
      const crashedAt = sim.now;
      sim.crash(victim);
      slowest.push(sim.runUntil(() => sim.allSee(victim, 'dead'), bound + 1));
      expect(slowest.at(-1), `seed ${seed}: ${victim} dead everywhere ${slowest.at(-1)} ms after the crash at ${crashedAt}, bound ${bound}`).toBeLessThanOrEqual(bound);
    }
  });
});
