/**
 * The headline, run live: two simulated clusters of the same size and seed, one configured as
 * memberlist ships (memberlistProfile) and one with our defaults, with the same members blacked out
 * for the same time (docs/corrections-study.md's blackout: timers keep running, packets are held
 * and delivered when the outage ends). Both run on virtual time, side by side, paced to real time
 * times a speed factor (0: as fast as the machine goes), and report as they go: the state every
 * observer holds about every member, and the false deaths (a healthy member declared dead by a
 * healthy member) counted as they happen.
 */
import { createRng, memberlistProfile, presets, shuffleInPlace, type SwimConfig } from '@swim/core';
import { Simulation } from '@swim/transport-memory';
import type { HeadlineEvent, HeadlineParams, HeadlinePhase, HeadlineRow, HeadlineSample, HeadlineSide, HeadlineSideName, HeadlineStatus } from './headline-api.js';
import { countStates, matrixRow } from './matrix-api.js';

export { HEADLINE_EXPLANATION } from './headline-api.js';

/** Virtual time advanced per step; each side runs one step, then the run waits to keep the pace. */
const STEP_MS = 100;
/** A fresh cluster must converge within this much virtual time. */
const CONVERGE_LIMIT_MS = 60_000;
/** Steady state after convergence before the cut, shown on the page (paced). */
const BEFORE_CUT_MS = 3_000;
/** Salt of the generator that picks the cut-off members, so the pick does not share the simulation's stream. */
const CUT_SALT = 0xb1ac;
/** False deaths kept as events per side (all of them are counted). */
const MAX_EVENTS = 500;

/** Virtual time between two samples of a side's state counts (the page's timeline). */
const SAMPLE_MS = 1000;

export function headlineConfig(side: HeadlineSideName): SwimConfig {
  return side === 'memberlist' ? memberlistProfile(presets.lan()) : presets.lan();
}

/** `cut` distinct members of n0 … n(members−1), drawn from the seed (the same on both sides), in cluster order. */
export function pickCut(seed: number, members: number, cut: number): string[] {
  const rng = createRng(seed * 1_000_003 + CUT_SALT);
  const order = Array.from({ length: members }, (_, i) => i);
  shuffleInPlace(rng, order);
  return order
    .slice(0, cut)
    .sort((a, b) => a - b)
    .map((i) => `n${i}`);
}

interface Side {
  readonly name: HeadlineSideName;
  readonly sim: Simulation;
  readonly falseDeaths: HeadlineEvent[];
  falseDeathCount: number;
  readonly victims: Set<string>;
  readonly history: HeadlineSample[];
}

export interface HeadlineRunOptions extends HeadlineParams {
  /** Called after every step (for tests and progress); errors thrown here end the run. */
  readonly onStep?: (run: HeadlineRun) => void;
}

/**
 * One side-by-side run. `start()` begins it in the background; `done` settles when it ends
 * (finished, stopped, or failed: see `status().phase` and `status().error`).
 */
export class HeadlineRun {
  readonly params: HeadlineParams;
  readonly cut: readonly string[];
  readonly done: Promise<void>;
  readonly #sides: readonly [Side, Side];
  readonly #cutSet: ReadonlySet<string>;
  readonly #onStep: ((run: HeadlineRun) => void) | undefined;
  #phase: HeadlinePhase = 'converging';
  #stopped = false;
  #error: string | undefined;
  /** Virtual time (same on both sides) the blackout began, once it has. */
  #cutAt: number | undefined;
  #resolveDone!: () => void;

  constructor(options: HeadlineRunOptions) {
    const { onStep, ...params } = options;
    this.params = params;
    this.#onStep = onStep;
    this.cut = pickCut(params.seed, params.members, params.cut);
    this.#cutSet = new Set(this.cut);
    this.#sides = [this.#side('memberlist'), this.#side('swim')];
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  get phase(): HeadlinePhase {
    return this.#phase;
  }

  /** Begin in the background; call once. */
  start(): this {
    this.#run().then(
      () => this.#finish(this.#stopped ? 'stopped' : 'done'),
      (error: unknown) => {
        this.#error = `${(error as Error).message ?? String(error)} (seed ${this.params.seed})`;
        this.#finish('failed');
      },
    );
    return this;
  }

  /** End the run at its next step. */
  stop(): void {
    this.#stopped = true;
  }

  get running(): boolean {
    return this.#phase !== 'done' && this.#phase !== 'stopped' && this.#phase !== 'failed';
  }

  falseDeaths(side: HeadlineSideName): number {
    return this.#sideNamed(side).falseDeathCount;
  }

  status(): HeadlineStatus {
    const now = this.#sides[0].sim.now;
    return {
      params: this.params,
      phase: this.#phase,
      ...(this.#error === undefined ? {} : { error: this.#error }),
      cut: this.cut,
      virtualMs: Math.round(now),
      sinceCutMs: this.#cutAt === undefined ? null : Math.round(now - this.#cutAt),
      sides: this.#sides.map((side) => this.#sideStatus(side)),
    };
  }

  async #run(): Promise<void> {
    const { outageS, watchS } = this.params;
    // Convergence is not the point: run it unpaced (still yielding, so the server stays responsive).
    await this.#advanceWhile(() => !this.#sides.every((s) => s.sim.converged()), CONVERGE_LIMIT_MS, false, 'both clusters converge');
    this.#phase = 'steady';
    await this.#advance(BEFORE_CUT_MS, true);
    this.#phase = 'blackout';
    this.#cutAt = this.#sides[0].sim.now;
    for (const side of this.#sides) side.sim.blackout(this.cut);
    await this.#advance(outageS * 1000, true);
    this.#phase = 'reconnected';
    for (const side of this.#sides) side.sim.endBlackout(this.cut);
    await this.#advance(watchS * 1000, true);
  }

  async #advance(ms: number, paced: boolean): Promise<void> {
    const end = this.#sides[0].sim.now + ms;
    await this.#advanceWhile(() => this.#sides[0].sim.now < end, ms, paced, '');
  }

  /** Step both sides while `more()` holds, at most `limitMs` of virtual time (throws naming `what` past it). */
  async #advanceWhile(more: () => boolean, limitMs: number, paced: boolean, what: string): Promise<void> {
    const virtualStart = this.#sides[0].sim.now;
    const wallStart = performance.now();
    const speed = this.params.speed;
    while (!this.#stopped && more()) {
      const elapsed = this.#sides[0].sim.now - virtualStart;
      if (elapsed >= limitMs) {
        if (what === '') return;
        throw new Error(`not met within ${limitMs / 1000} s of virtual time: ${what}`);
      }
      const step = Math.min(STEP_MS, limitMs - elapsed);
      for (const side of this.#sides) side.sim.runFor(step);
      this.#sample();
      this.#onStep?.(this);
      if (paced && speed > 0) {
        const due = wallStart + (this.#sides[0].sim.now - virtualStart) / speed;
        const wait = due - performance.now();
        await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  #side(name: HeadlineSideName): Side {
    const sim = new Simulation({ seed: this.params.seed, config: headlineConfig(name) });
    sim.startCluster(this.params.members);
    const side: Side = { name, sim, falseDeaths: [], falseDeathCount: 0, victims: new Set(), history: [] };
    sim.onEvent((event) => {
      if (event.kind !== 'dead' || this.#cutAt === undefined) return;
      if (this.#cutSet.has(event.observer) || this.#cutSet.has(event.subject)) return;
      side.falseDeathCount++;
      side.victims.add(event.subject);
      if (side.falseDeaths.length < MAX_EVENTS) {
        side.falseDeaths.push({ sinceCutMs: Math.round(event.at - this.#cutAt), observer: event.observer, subject: event.subject });
      }
    });
    return side;
  }

  #sideNamed(name: HeadlineSideName): Side {
    return this.#sides.find((s) => s.name === name)!;
  }

  #sideStatus(side: Side): HeadlineSide {
    const { members, rows } = this.#matrix(side);
    return {
      side: side.name,
      members,
      rows,
      counts: countStates({ members, rows }),
      history: side.history,
      falseDeaths: side.falseDeathCount,
      falseVictims: side.victims.size,
      events: side.falseDeaths,
    };
  }

  /** Who sees whom on one side: every observer's view of every member, the cut ones marked. */
  #matrix(side: Side): { members: string[]; rows: HeadlineRow[] } {
    const observers = side.sim.members();
    const members = observers.map((m) => m.name);
    const rows = observers.map((observer) => ({
      ...matrixRow(observer.name, observer.healthScore, members, (subject) => observer.member(subject)),
      cut: this.#cutSet.has(observer.name),
    }));
    return { members, rows };
  }

  /** Sample each side's counts at every whole virtual second passed. */
  #sample(): void {
    for (const side of this.#sides) {
      const last = side.history.at(-1)?.atMs ?? -SAMPLE_MS;
      const now = side.sim.now;
      if (now - last < SAMPLE_MS) continue;
      side.history.push({ atMs: Math.floor(now / SAMPLE_MS) * SAMPLE_MS, ...countStates(this.#matrix(side)), falseDeaths: side.falseDeathCount });
    }
  }

  #finish(phase: HeadlinePhase): void {
    // The members stay as they are (virtual clock, in-memory network: nothing to release), so the
    // final views remain readable.
    this.#phase = phase;
    this.#resolveDone();
  }
}
