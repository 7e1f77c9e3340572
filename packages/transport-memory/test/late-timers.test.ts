/**
 * A member whose own timers run late (lifeguard/late-tick.ts in @swim/core): the late call is local
 * unhealth, so the member accuses nobody on it, and its peers, whose timers are on time, judge it
 * as usual. Each case runs with the rule on (the lan preset's `lateTickMs`) and off (0), so that
 * the test shows what the rule prevents.
 */
import { describe, expect, it } from 'vitest';
import { Simulation, type SimEvent } from '../src/index.js';

const N = 6;
const SEEDS = [1, 2, 3, 4, 5, 6];
const SLOW = 'n3';

interface Run {
  readonly sim: Simulation;
  /** Events from the moment the slow member's timers started running late. */
  readonly events: SimEvent[];
}

/** A converged cluster of N, quiet for a while, recording events from now on. */
function cluster(seed: number, lateTickMs: number | undefined): Run {
  const sim = new Simulation({ seed, ...(lateTickMs === undefined ? {} : { config: { lateTickMs } }) });
  sim.startCluster(N);
  sim.runUntil(() => sim.converged(), 30_000);
  sim.runFor(5_000);
  const events: SimEvent[] = [];
  sim.onEvent((e) => events.push(e));
  return { sim, events };
}

/**
 * Run until the slow member has just sent a probe's ping: its ack is in flight (1-5 ms away), the
 * worst moment for its timers to stop.
 */
function untilProbeSent(sim: Simulation, seed: number): void {
  const started = sim.member(SLOW).counters.probes;
  sim.runUntil(() => sim.member(SLOW).counters.probes > started, 5_000, 1);
  expect(sim.member(SLOW).counters.probes, `seed ${seed}`).toBe(started + 1);
}

/** What the slow member accused others of (its own suspicions and verdicts), all of them alive. */
function accusationsBySlow(run: Run): { suspicions: number; deaths: number } {
  const { suspicionsRaised, deathsDeclared } = run.sim.member(SLOW).counters;
  return { suspicions: suspicionsRaised, deaths: deathsDeclared };
}

function deathsOf(events: readonly SimEvent[], subject: string): SimEvent[] {
  return events.filter((e) => e.kind === 'dead' && e.subject === subject);
}

/**
 * Packets drive the core as much as its timer: every call runs the deadlines that are due, after
 * the packet's own messages. So a member whose timers are late but whose packets flow reads each
 * ack before any deadline of its probe runs, and judges nobody unfairly with or without the rule:
 * the rule's part here is the health score (its timers did run late), and what it prevents shows
 * in the stall below.
 */
describe('a member whose timers run 60 s late while its packets flow (a hidden tab under intensive throttling)', () => {
  it.each(SEEDS.flatMap((seed) => [[seed, 'on'], [seed, 'off']] as const))('accuses nobody, nobody declares it dead, and it stays in the cluster (seed %i, rule %s)', (seed, rule) => {
    const run = cluster(seed, rule === 'on' ? undefined : 0);
    const { sim, events } = run;
    untilProbeSent(sim, seed);
    sim.holdTimers(SLOW);
    sim.runFor(60_000);
    sim.releaseTimers(SLOW);
    sim.runFor(10_000);
    expect(accusationsBySlow(run), `seed ${seed}`).toEqual({ suspicions: 0, deaths: 0 });
    expect(deathsOf(events, SLOW), `seed ${seed}`).toEqual([]);
    expect(events.filter((e) => e.kind === 'dead'), `seed ${seed}: nobody died`).toEqual([]);
    expect(sim.converged(), `seed ${seed}`).toBe(true);
  });
});

/**
 * A stall that holds the packets too (SIGSTOP, a blocked event loop, a frozen tab that is thawed):
 * the answers queued behind it reach the member only as it resumes, after its overdue timer, as in
 * Node's event loop, whose timers phase runs before the poll phase that reads the queued datagrams.
 * (`Simulation.resume` hands the packets over first; then the ack of the probe in flight, queued
 * first, is read before any deadline runs, and a late deadline judges nobody unfairly.) Shorter than
 * the suspicion timeout, so its peers only suspect it, and it refutes.
 */
describe('a member stalled with its packets held, then resumed', () => {
  const STALLS_MS = [2_500, 3_000, 3_500];

  function stallAll(lateTickMs: number | undefined): { seed: number; stallMs: number; suspicions: number; deaths: number; slowDied: number }[] {
    const results = [];
    for (const seed of SEEDS) {
      for (const stallMs of STALLS_MS) {
        const run = cluster(seed, lateTickMs);
        const { sim, events } = run;
        untilProbeSent(sim, seed);
        const address = sim.addressOf(SLOW);
        sim.holdTimers(SLOW);
        sim.network.pause(address);
        sim.runFor(stallMs);
        sim.releaseTimers(SLOW); // the overdue timer first, then the datagrams queued meanwhile
        sim.network.resume(address);
        sim.runFor(15_000);
        results.push({ seed, stallMs, ...accusationsBySlow(run), slowDied: deathsOf(events, SLOW).length });
      }
    }
    return results;
  }

  it('with the rule: the resumed member accuses nobody, and nobody declares it dead', () => {
    for (const r of stallAll(undefined)) {
      expect(r, `seed ${r.seed}, stall ${r.stallMs} ms`).toMatchObject({ suspicions: 0, deaths: 0, slowDied: 0 });
    }
  });

  it('without it (lateTickMs 0): in every run, the probe that came due in the stall accuses its live target', () => {
    const results = stallAll(0);
    const accusing = results.filter((r) => r.suspicions > 0);
    expect(accusing.length, `false accusations per run (seed, stall): ${JSON.stringify(results.map((r) => [r.seed, r.stallMs, r.suspicions]))}`).toBe(results.length);
  });
});
