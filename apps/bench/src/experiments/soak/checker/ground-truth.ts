import type { NemesisAction, Timeline } from './types.js';

/** A half-open interval [from, to) of virtual or wall time, with the action that caused it. */
export interface Span {
  readonly from: number;
  readonly to: number;
  readonly action: NemesisAction;
}

interface PartitionSpan extends Span {
  readonly sideA: ReadonlySet<string>;
  /** Undefined: everyone not on side A. */
  readonly sideB: ReadonlySet<string> | undefined;
}

/** Whether [a0, a1] and [from, to) overlap (a closed query window against a half-open span). */
function overlaps(span: { from: number; to: number }, a0: number, a1: number): boolean {
  return span.from <= a1 && span.to > a0;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Kinds that start a new process (a new life) of their targets. */
const NEW_LIFE = new Set(['restart', 'rejoin']);

/**
 * What really happened, from the nemesis log: who ran, who was paused, cut off or partitioned, who
 * was a member, at any time. Built once per timeline; queries scan a member's own short lists.
 */
export class GroundTruth {
  readonly start: number;
  readonly end: number;
  readonly #down = new Map<string, Span[]>();
  readonly #paused = new Map<string, Span[]>();
  readonly #blackout = new Map<string, Span[]>();
  readonly #left = new Map<string, Span[]>();
  readonly #lives = new Map<string, Array<{ at: number; preloaded: boolean; action: NemesisAction }>>();
  readonly #partitions: PartitionSpan[] = [];
  readonly #actions: readonly NemesisAction[];

  constructor(timeline: Pick<Timeline, 'start' | 'end' | 'nemesis'>) {
    this.start = timeline.start;
    this.end = timeline.end;
    const actions = [...timeline.nemesis].sort((a, b) => a.start - b.start);
    this.#actions = actions;
    const nextLife = (name: string, after: number): number => {
      for (const a of actions) if (a.start >= after && NEW_LIFE.has(a.kind) && a.targets.includes(name)) return a.start;
      return Infinity;
    };
    for (const action of actions) {
      const end = action.end ?? Infinity;
      switch (action.kind) {
        case 'kill':
          for (const name of action.targets) push(this.#down, name, { from: action.start, to: action.end ?? nextLife(name, action.start), action });
          break;
        case 'pause':
          for (const name of action.targets) push(this.#paused, name, { from: action.start, to: end, action });
          break;
        case 'blackout':
          for (const name of action.targets) push(this.#blackout, name, { from: action.start, to: end, action });
          break;
        case 'partition':
          this.#partitions.push({ from: action.start, to: end, action, sideA: new Set(action.targets), sideB: action.peers === undefined ? undefined : new Set(action.peers) });
          break;
        case 'leave':
          for (const name of action.targets) push(this.#left, name, { from: action.start, to: nextLife(name, action.start), action });
          break;
        case 'restart':
        case 'rejoin':
          for (const name of action.targets) push(this.#lives, name, { at: action.start, preloaded: action.preloaded === true, action });
          break;
      }
    }
  }

  /** The nemesis log, sorted by start. */
  get actions(): readonly NemesisAction[] {
    return this.#actions;
  }

  isRunning(name: string, t: number): boolean {
    return !(this.#down.get(name) ?? []).some((s) => s.from <= t && t < s.to);
  }

  /** Running throughout [t0, t1]. */
  runningThroughout(name: string, t0: number, t1: number): boolean {
    return !(this.#down.get(name) ?? []).some((s) => overlaps(s, t0, t1));
  }

  isPaused(name: string, t: number): boolean {
    return (this.#paused.get(name) ?? []).some((s) => s.from <= t && t < s.to);
  }

  pausedDuring(name: string, t0: number, t1: number): boolean {
    return (this.#paused.get(name) ?? []).some((s) => overlaps(s, t0, t1));
  }

  /** Not left gracefully (or rejoined since). */
  isMember(name: string, t: number): boolean {
    return !(this.#left.get(name) ?? []).some((s) => s.from <= t && t < s.to);
  }

  memberThroughout(name: string, t0: number, t1: number): boolean {
    return !(this.#left.get(name) ?? []).some((s) => overlaps(s, t0, t1));
  }

  /** Packets can flow between x and y at t: neither is blacked out and no partition separates them. */
  reachable(x: string, y: string, t: number): boolean {
    return this.reachableThroughout(x, y, t, t);
  }

  reachableThroughout(x: string, y: string, t0: number, t1: number): boolean {
    for (const name of [x, y]) if ((this.#blackout.get(name) ?? []).some((s) => overlaps(s, t0, t1))) return false;
    return !this.#partitions.some((p) => overlaps(p, t0, t1) && separates(p, x, y));
  }

  /** Start times of the member's new processes (restarts and rejoins), in order. */
  lives(name: string): ReadonlyArray<{ at: number; preloaded: boolean; action: NemesisAction }> {
    return this.#lives.get(name) ?? [];
  }

  /** The member's down spans (kill to restart). */
  downSpans(name: string): readonly Span[] {
    return this.#down.get(name) ?? [];
  }

  /** Spans in which a nemesis action kept packets from flowing between all members or froze one: pauses, blackouts, partitions. */
  disruptions(): Span[] {
    const spans: Span[] = [];
    for (const map of [this.#paused, this.#blackout]) for (const list of map.values()) spans.push(...list);
    spans.push(...this.#partitions);
    return dedupe(spans).sort((a, b) => a.from - b.from);
  }

  /**
   * The most recent fault involving the pair before `t` (by the time it ended, or started for a
   * kill, restart, leave or rejoin): a partition between them, a pause, blackout, kill or restart
   * of either, a leave or rejoin of either. Undefined when none.
   */
  lastFaultOfPair(declarer: string, subject: string, t: number): { kind: string; who: 'declarer' | 'subject' | 'both'; at: number; action: NemesisAction } | undefined {
    let best: { kind: string; who: 'declarer' | 'subject' | 'both'; at: number; action: NemesisAction } | undefined;
    const consider = (kind: string, who: 'declarer' | 'subject' | 'both', span: { from: number; to: number; action: NemesisAction }, instant = false) => {
      if (span.from > t) return;
      // A fault still in effect at t counts as ending at t; a kill or leave not undone counts from its start.
      const at = instant ? (span.to <= t ? span.to : span.from) : Math.min(span.to, t);
      if (best === undefined || at > best.at) best = { kind, who, at, action: span.action };
    };
    for (const [who, name] of [['declarer', declarer], ['subject', subject]] as const) {
      for (const s of this.#paused.get(name) ?? []) consider('pause', who, s);
      for (const s of this.#blackout.get(name) ?? []) consider('blackout', who, s);
      for (const s of this.#down.get(name) ?? []) consider(s.to <= t ? 'restart' : 'kill', who, s, true);
      for (const s of this.#left.get(name) ?? []) consider(s.to <= t ? 'rejoin' : 'leave', who, s, true);
    }
    for (const p of this.#partitions) if (separates(p, declarer, subject)) consider('partition', 'both', p);
    return best;
  }
}

function separates(p: PartitionSpan, x: string, y: string): boolean {
  const xa = p.sideA.has(x);
  const ya = p.sideA.has(y);
  if (xa === ya) return false;
  if (p.sideB === undefined) return true;
  return xa ? p.sideB.has(y) : p.sideB.has(x);
}

function dedupe(spans: Span[]): Span[] {
  const seen = new Set<NemesisAction>();
  return spans.filter((s) => (seen.has(s.action) ? false : (seen.add(s.action), true)));
}
