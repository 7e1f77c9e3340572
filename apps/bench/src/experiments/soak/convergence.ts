/**
 * Convergence after each heal, restart and rotation, from every running agent's GET /members
 * (polled every few seconds through the group watchers): the subjects are converged once every
 * running agent not under a fault holds each of them alive, and each of them holds those agents
 * alive. A fault that hits a subject first censors the measurement.
 */
import type { ConvergenceResult, NemesisKind } from './timeline.js';

export type Views = ReadonlyMap<string, ReadonlyMap<string, string>>;

interface Pending {
  readonly actionId: number;
  readonly kind: NemesisKind | 'initial' | 'final';
  readonly subjects: readonly string[];
  readonly since: number;
}

export class ConvergenceTracker {
  readonly results: ConvergenceResult[] = [];
  #pending: Pending[] = [];

  constructor(readonly limitMs: number) {}

  expect(actionId: number, kind: Pending['kind'], subjects: readonly string[], since: number): void {
    this.#pending.push({ actionId, kind, subjects, since });
  }

  /** A fault starts on these agents: pending measurements about them are censored. */
  censor(names: readonly string[]): void {
    this.#pending = this.#pending.filter((p) => {
      if (!p.subjects.some((s) => names.includes(s))) return true;
      this.results.push({ actionId: p.actionId, kind: p.kind, subjects: p.subjects, ms: undefined, censored: true });
      return false;
    });
  }

  get pending(): number {
    return this.#pending.length;
  }

  /**
   * One round of views taken at `at` (round started at `startedAt`): `healthy` are the running
   * agents under no fault. Subjects of a rotation are all healthy agents.
   */
  round(startedAt: number, at: number, views: Views, healthy: readonly string[]): void {
    this.#pending = this.#pending.filter((p) => {
      if (startedAt < p.since) return true;
      const subjects = p.subjects.length === 0 ? healthy : p.subjects.filter((s) => healthy.includes(s));
      const ok =
        subjects.length === p.subjects.length || p.subjects.length === 0
          ? subjects.every((s) => healthy.every((o) => o === s || (views.get(o)?.get(s) === 'alive' && views.get(s)?.get(o) === 'alive')))
          : false;
      if (ok) {
        this.results.push({ actionId: p.actionId, kind: p.kind, subjects: p.subjects, ms: Math.max(0, at - p.since), censored: false });
        return false;
      }
      if (at - p.since > this.limitMs) {
        this.results.push({ actionId: p.actionId, kind: p.kind, subjects: p.subjects, ms: undefined, censored: false });
        return false;
      }
      return true;
    });
  }

  /** End of the run: what is still pending did not converge in time (or the run ended first). */
  close(at: number): void {
    for (const p of this.#pending) this.results.push({ actionId: p.actionId, kind: p.kind, subjects: p.subjects, ms: undefined, censored: at - p.since < this.limitMs });
    this.#pending = [];
  }
}
