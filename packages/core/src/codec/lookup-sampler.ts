/**
 * When a process-wide cache of byte strings is worth looking up (shared-parts.ts, update-cache.ts).
 * A lone member (one core per process) almost never meets the same bytes twice, so hashing and
 * keeping each one is waste, and kept objects outlive the young generation. While the last WINDOW
 * lookups hit less than one time in sixteen, only the byte strings that pick themselves (one in
 * SKIP_STRIDE, the same choice for equal bytes) are looked up and kept; once a window's samples hit
 * again (many members of one process passing the same updates around), every one is.
 */
const WINDOW = 1024;
const SKIP_STRIDE = 8;

export class LookupSampler {
  #sampling = false;
  #lookups = 0;
  #hits = 0;

  /** Whether to look `bytes[start, end)` (at least one byte) up at all. */
  worthLookingUp(bytes: Uint8Array, start: number, end: number): boolean {
    if (!this.#sampling) return true;
    const length = end - start;
    return ((bytes[end - 1]! ^ bytes[start + (length >> 1)]! ^ length) & (SKIP_STRIDE - 1)) === 0;
  }

  /** Count one lookup made, and whether it hit. */
  note(hit: boolean): void {
    if (hit) this.#hits++;
    if (++this.#lookups === WINDOW) {
      this.#sampling = this.#hits * 16 < WINDOW;
      this.#lookups = 0;
      this.#hits = 0;
    }
  }
}
