/** Thrown by a detector constructor for invalid options; lists every problem at once. */
export class DetectorOptionsError extends RangeError {
  /** One line per invalid option, e.g. `threshold must be finite and > 0, got 0`. */
  readonly problems: readonly string[];

  constructor(detector: string, problems: readonly string[]) {
    super(`${detector}: invalid options:\n  - ${problems.join('\n  - ')}`);
    this.name = 'DetectorOptionsError';
    this.problems = problems;
  }
}

/** Collects problems with option values, then throws them together. */
export class OptionChecks {
  readonly #problems: string[] = [];

  constructor(readonly detector: string) {}

  positive(name: string, value: number): void {
    if (!(value > 0)) this.#problems.push(`${name} must be > 0, got ${String(value)}`);
  }

  finitePositive(name: string, value: number): void {
    if (!(value > 0 && Number.isFinite(value))) this.#problems.push(`${name} must be finite and > 0, got ${String(value)}`);
  }

  finiteNonNegative(name: string, value: number): void {
    if (!(value >= 0 && Number.isFinite(value))) this.#problems.push(`${name} must be finite and >= 0, got ${String(value)}`);
  }

  positiveInteger(name: string, value: number): void {
    if (!Number.isInteger(value) || value < 1) this.#problems.push(`${name} must be an integer >= 1, got ${String(value)}`);
  }

  oneOf(name: string, value: unknown, allowed: readonly unknown[]): void {
    if (!allowed.includes(value)) {
      this.#problems.push(`${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(value)}`);
    }
  }

  /** Throws a {@link DetectorOptionsError} if any check failed. */
  done(): void {
    if (this.#problems.length > 0) throw new DetectorOptionsError(this.detector, this.#problems);
  }
}

/** Guards the detectors' state against a time that is not a number. */
export function assertTime(now: number, where: string): void {
  if (!Number.isFinite(now)) throw new RangeError(`${where}: now must be a finite number of milliseconds, got ${String(now)}`);
}
