import { formatDuration } from './stats.js';

/** Where progress goes: stderr by default, so stdout carries only the results. */
export interface ProgressSink {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/**
 * Progress of a long run, counted in runs (the unit of work) and reported per cell (a group of
 * runs that makes one result). On a terminal it is one line rewritten in place after every run:
 * cells done / total, runs done / total, elapsed time and an ETA from the mean time per run.
 * Elsewhere (a pipe, CI, a log file) it prints one line per finished cell instead.
 */
export class Progress {
  readonly #label: string;
  readonly #sink: ProgressSink;
  readonly #clock: () => number;
  readonly #started: number;
  readonly #totalCells: number;
  readonly #totalRuns: number;
  #cells = 0;
  #runs = 0;
  #current = '';
  #lineShown = false;

  constructor(
    label: string,
    totals: { readonly cells: number; readonly runs: number },
    options: { readonly sink?: ProgressSink; readonly clock?: () => number } = {},
  ) {
    this.#label = label;
    this.#sink = options.sink ?? process.stderr;
    this.#clock = options.clock ?? (() => performance.now());
    this.#started = this.#clock();
    this.#totalCells = totals.cells;
    this.#totalRuns = totals.runs;
  }

  get elapsedMs(): number {
    return this.#clock() - this.#started;
  }

  /** Estimated time left, from the mean wall time per finished run; NaN before the first run. */
  get etaMs(): number {
    if (this.#runs === 0) return Number.NaN;
    return (this.elapsedMs / this.#runs) * (this.#totalRuns - this.#runs);
  }

  /** A cell starts: name it in the live line. */
  startCell(description: string): void {
    this.#current = description;
    this.#draw();
  }

  /** One run finished. */
  runDone(): void {
    this.#runs++;
    this.#draw();
  }

  /** The current cell finished; `result` is a short summary printed on non-terminals. */
  cellDone(result: string): void {
    this.#cells++;
    if (this.#sink.isTTY) {
      this.#draw();
    } else {
      this.#sink.write(`[${this.#label}] ${this.#cells}/${this.#totalCells} ${this.#current}: ${result} (elapsed ${formatDuration(this.elapsedMs)}, ETA ${formatDuration(this.etaMs)})\n`);
    }
  }

  /** Clear the live line (terminal) so the results print on a clean line. */
  finish(): void {
    if (this.#sink.isTTY && this.#lineShown) this.#sink.write('\r\x1b[2K');
    this.#lineShown = false;
  }

  /** A message that must not be overwritten by the live line. */
  log(message: string): void {
    this.finish();
    this.#sink.write(`${message}\n`);
    this.#draw();
  }

  #draw(): void {
    if (!this.#sink.isTTY) return;
    const eta = this.#runs === 0 ? '…' : formatDuration(this.etaMs);
    let line =
      `[${this.#label}] cell ${Math.min(this.#cells + 1, this.#totalCells)}/${this.#totalCells}` +
      ` run ${this.#runs}/${this.#totalRuns}  elapsed ${formatDuration(this.elapsedMs)}  ETA ${eta}  ${this.#current}`;
    // A pseudo-terminal may report 0 columns: assume 100 then.
    const columns = this.#sink.columns;
    const width = (columns !== undefined && columns >= 20 ? columns : 100) - 1;
    if (line.length > width) line = `${line.slice(0, Math.max(0, width - 1))}…`;
    this.#sink.write(`\r\x1b[2K${line}`);
    this.#lineShown = true;
  }
}
