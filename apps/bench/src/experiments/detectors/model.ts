import { createRng, randomFloat, type Rng } from '@swim/core';

/**
 * A seeded model of the heartbeats one member sends to the member that watches it (the detector
 * lab of docs/corrections-study.md, "a network you can break on purpose"). All times are
 * milliseconds, the detectors' unit.
 *
 * A heartbeat leaves every `intervalMs`. Each is lost with probability `loss`; the others take a
 * log-normal delay (median `medianDelayMs`, log-scale spread `sigma`). Stalls (a GC pause, a
 * congested link) begin after exponentially distributed quiet spells with mean `stallEveryMs` and
 * last a uniform `stallMinMs`–`stallMaxMs`: they hold back every heartbeat sent while they last and
 * release them together when they end, each then taking its own delay. The monitor keeps only a
 * heartbeat newer than every one it already has (sequence numbers), so a late copy of an older
 * heartbeat tells it nothing.
 */
export interface Regime {
  readonly name: string;
  readonly medianDelayMs: number;
  /** Standard deviation of ln(delay). */
  readonly sigma: number;
  /** Probability that one heartbeat never arrives. */
  readonly loss: number;
  /** Mean quiet time between stalls, ms; 0 = no stalls. */
  readonly stallEveryMs: number;
  readonly stallMinMs: number;
  readonly stallMaxMs: number;
}

/** A quiet local network: 20 ms median delay, one heartbeat in a thousand lost, no stalls (the lab's CALM). */
export const CALM: Regime = Object.freeze({ name: 'calm', medianDelayMs: 20, sigma: 0.3, loss: 0.001, stallEveryMs: 0, stallMinMs: 0, stallMaxMs: 0 });

/**
 * A busy network: 150 ms median delay with a long tail, one heartbeat in a hundred lost, and a
 * 1.5–3 s stall about every 15 minutes (the lab's BUSY).
 */
export const BUSY: Regime = Object.freeze({ name: 'busy', medianDelayMs: 150, sigma: 0.9, loss: 0.01, stallEveryMs: 900_000, stallMinMs: 1_500, stallMaxMs: 3_000 });

/** The lab's heartbeat interval: one a second. */
export const HEARTBEAT_INTERVAL_MS = 1_000;

/** A stretch of the trace under one regime. */
export interface Segment {
  readonly regime: Regime;
  readonly durationMs: number;
}

export interface Stall {
  readonly startMs: number;
  readonly endMs: number;
}

/** One heartbeat that was not lost, before reordering: when it left, was released, and arrived. */
export interface Beat {
  readonly seq: number;
  readonly sentMs: number;
  /** When the link let it go: the end of a stall that held it, else `sentMs`. */
  readonly releasedMs: number;
  readonly arrivedMs: number;
}

/** What the monitor sees: the heartbeats it counts, in arrival order. */
export interface Trace {
  /** Send time of each counted heartbeat; increasing (sequence numbers). */
  readonly sent: Float64Array;
  /** Arrival time of the same heartbeats; non-decreasing. */
  readonly arrived: Float64Array;
  /** Sequence number (1, 2, …) of the same heartbeats. */
  readonly seq: Int32Array;
  /**
   * Arrival time of heartbeat k at index k, counted or not (NaN if lost); with `intervalMs`, what
   * the scorer needs to replay a crash faithfully (a heartbeat that a later one overtook still
   * counts when the sender crashed before sending the later one). Absent for hand-made traces.
   */
  readonly arrivalBySeq?: Float64Array;
  readonly intervalMs: number;
  readonly durationMs: number;
  /** Heartbeats sent, lost on the way, and overtaken by a newer one (arrived but not counted). */
  readonly sentCount: number;
  readonly lostCount: number;
  readonly overtakenCount: number;
  readonly stalls: readonly Stall[];
}

/** Log-normal, exponential and uniform draws from one seeded stream (Box–Muller for the normal). */
export class Draws {
  readonly #rng: Rng;
  #spare: number | undefined;

  constructor(rng: Rng) {
    this.#rng = rng;
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return randomFloat(this.#rng);
  }

  /** Uniform in (0, 1]: safe for a logarithm. */
  #positive(): number {
    return 1 - randomFloat(this.#rng);
  }

  /** Standard normal. */
  normal(): number {
    if (this.#spare !== undefined) {
      const z = this.#spare;
      this.#spare = undefined;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(this.#positive()));
    const theta = 2 * Math.PI * this.uniform();
    this.#spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(this.#positive());
  }

  /** median · e^(sigma·Z). */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }
}

/** Mean of the log-normal delay: median · e^(σ²/2) (20.9 ms calm, 224.9 ms busy). */
export function meanDelayMs(regime: Regime): number {
  return regime.medianDelayMs * Math.exp((regime.sigma * regime.sigma) / 2);
}

/** Seeds for the traces: one stream per (run seed, purpose), as the other experiments salt theirs. */
export function streamSeed(seed: number, salt: number): number {
  return seed * 1_000_003 + salt;
}

function stallsOf(draws: Draws, regime: Regime, startMs: number, durationMs: number, out: Stall[]): void {
  if (regime.stallEveryMs <= 0) return;
  let t = draws.exponential(regime.stallEveryMs);
  while (t < durationMs) {
    const length = regime.stallMinMs + (regime.stallMaxMs - regime.stallMinMs) * draws.uniform();
    out.push({ startMs: startMs + t, endMs: startMs + t + length });
    t += length + draws.exponential(regime.stallEveryMs);
  }
}

/**
 * Every heartbeat that is not lost, in send order, and the stalls (all drawn first, segment by
 * segment, then one loss draw and one delay per heartbeat). Heartbeat k (k = 1, 2, …) leaves at
 * k · interval and follows the regime of the segment it leaves in; a stall is a property of the
 * link, so one that runs past a segment's end still holds what is sent until it ends.
 */
export function generateBeats(
  segments: readonly Segment[],
  options: { readonly seed: number; readonly intervalMs?: number },
): { beats: Beat[]; stalls: Stall[]; sentCount: number; durationMs: number } {
  const interval = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const draws = new Draws(createRng(options.seed));
  const stalls: Stall[] = [];
  const starts: number[] = [];
  let durationMs = 0;
  for (const { regime, durationMs: length } of segments) {
    if (!(length > 0)) throw new RangeError(`segment ${regime.name}: duration must be > 0, got ${length}`);
    starts.push(durationMs);
    stallsOf(draws, regime, durationMs, length, stalls);
    durationMs += length;
  }
  stalls.sort((a, b) => a.startMs - b.startMs);

  const beats: Beat[] = [];
  const sentCount = Math.floor(durationMs / interval);
  let segment = 0;
  let firstOpenStall = 0;
  for (let seq = 1; seq <= sentCount; seq++) {
    const sentMs = seq * interval;
    while (segment + 1 < starts.length && starts[segment + 1]! <= sentMs) segment++;
    const regime = segments[segment]!.regime;
    if (draws.uniform() < regime.loss) continue;
    // Stalls that ended by now stay ended: skip that prefix, then look at the ones begun by now.
    while (firstOpenStall < stalls.length && stalls[firstOpenStall]!.endMs <= sentMs) firstOpenStall++;
    let releasedMs = sentMs;
    for (let i = firstOpenStall; i < stalls.length && stalls[i]!.startMs <= sentMs; i++) {
      const s = stalls[i]!;
      if (sentMs < s.endMs && s.endMs > releasedMs) releasedMs = s.endMs;
    }
    const arrivedMs = releasedMs + draws.logNormal(regime.medianDelayMs, regime.sigma);
    beats.push({ seq, sentMs, releasedMs, arrivedMs });
  }
  return { beats, stalls, sentCount, durationMs };
}

/** The heartbeats the monitor counts, in arrival order (see {@link Trace}). */
export function makeTrace(segments: readonly Segment[], options: { readonly seed: number; readonly intervalMs?: number }): Trace {
  const { beats, stalls, sentCount, durationMs } = generateBeats(segments, options);
  const order = [...beats].sort((a, b) => a.arrivedMs - b.arrivedMs || a.seq - b.seq);
  const sent: number[] = [];
  const arrived: number[] = [];
  const seqs: number[] = [];
  const arrivalBySeq = new Float64Array(sentCount + 1).fill(Number.NaN);
  for (const beat of beats) arrivalBySeq[beat.seq] = beat.arrivedMs;
  let newest = 0;
  for (const beat of order) {
    if (beat.seq <= newest) continue;
    newest = beat.seq;
    sent.push(beat.sentMs);
    arrived.push(beat.arrivedMs);
    seqs.push(beat.seq);
  }
  return {
    sent: Float64Array.from(sent),
    arrived: Float64Array.from(arrived),
    seq: Int32Array.from(seqs),
    arrivalBySeq,
    intervalMs: options.intervalMs ?? HEARTBEAT_INTERVAL_MS,
    durationMs,
    sentCount,
    lostCount: sentCount - beats.length,
    overtakenCount: beats.length - sent.length,
    stalls,
  };
}

/** A trace from hand-made times (tests, or a real heartbeat log): `sent` defaults to `arrived`. */
export function traceFrom(arrived: readonly number[], options: { readonly sent?: readonly number[]; readonly durationMs: number }): Trace {
  const sent = options.sent ?? arrived;
  if (sent.length !== arrived.length) throw new RangeError('traceFrom: sent and arrived differ in length');
  for (let i = 1; i < arrived.length; i++) {
    if (!(arrived[i]! >= arrived[i - 1]!) || !(sent[i]! > sent[i - 1]!)) throw new RangeError('traceFrom: arrivals must not decrease and send times must increase');
  }
  return {
    sent: Float64Array.from(sent),
    arrived: Float64Array.from(arrived),
    seq: Int32Array.from(arrived, (_, i) => i + 1),
    intervalMs: Number.NaN,
    durationMs: options.durationMs,
    sentCount: sent.length,
    lostCount: 0,
    overtakenCount: 0,
    stalls: [],
  };
}
