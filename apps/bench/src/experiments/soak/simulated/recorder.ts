import type { SimEvent } from '@swim/transport-memory';
import type { Observation, ObservationKind } from '../checker/index.js';

const KINDS: readonly ObservationKind[] = ['join', 'update', 'suspect', 'alive', 'dead', 'left'];
const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));

/**
 * Every membership event of a simulated day, column by column in typed arrays: a day of 200
 * members is millions of events, and kept as objects they would be most of the heap the run
 * measures. Typed arrays live outside the JS heap (`arrayBuffers`), so the hourly heap samples
 * see the simulator, not this log.
 */
export class ObservationLog {
  readonly #names: string[] = [];
  readonly #ids = new Map<string, number>();
  #length = 0;
  #at = new Float64Array(1 << 16);
  #incarnation = new Float64Array(1 << 16);
  #observer = new Uint32Array(1 << 16);
  #subject = new Uint32Array(1 << 16);
  /** verdictBy + 1; 0: none. */
  #verdictBy = new Uint32Array(1 << 16);
  #kind = new Uint8Array(1 << 16);

  get length(): number {
    return this.#length;
  }

  /** Bytes held by the columns. */
  get bytes(): number {
    return this.#at.byteLength * 2 + this.#observer.byteLength * 3 + this.#kind.byteLength;
  }

  #id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.#names.length;
      this.#names.push(name);
      this.#ids.set(name, id);
    }
    return id;
  }

  /** Record one event; a member's events about itself are left out (the checker looks at pairs). */
  add(event: SimEvent): void {
    if (event.observer === event.subject) return;
    if (this.#length === this.#at.length) this.#grow();
    const i = this.#length++;
    this.#at[i] = event.at;
    this.#incarnation[i] = event.incarnation;
    this.#observer[i] = this.#id(event.observer);
    this.#subject[i] = this.#id(event.subject);
    this.#kind[i] = KIND_CODE.get(event.kind)!;
    this.#verdictBy[i] = event.cause === undefined ? 0 : this.#id(event.cause.by) + 1;
  }

  #grow(): void {
    const grow = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(a.length * 2);
      b.set(a);
      return b;
    };
    this.#at = grow(this.#at);
    this.#incarnation = grow(this.#incarnation);
    this.#observer = grow(this.#observer);
    this.#subject = grow(this.#subject);
    this.#verdictBy = grow(this.#verdictBy);
    this.#kind = grow(this.#kind);
  }

  /** The events as the checker's observations, in the order recorded (virtual time order). */
  toObservations(): Observation[] {
    const out: Observation[] = new Array(this.#length);
    const names = this.#names;
    for (let i = 0; i < this.#length; i++) {
      const by = this.#verdictBy[i]!;
      out[i] = {
        at: this.#at[i]!,
        observer: names[this.#observer[i]!]!,
        subject: names[this.#subject[i]!]!,
        kind: KINDS[this.#kind[i]!]!,
        incarnation: this.#incarnation[i]!,
        verdictBy: by === 0 ? undefined : names[by - 1],
      };
    }
    return out;
  }

  /** Events per kind. */
  countByKind(): Record<ObservationKind, number> {
    const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ObservationKind, number>;
    for (let i = 0; i < this.#length; i++) counts[KINDS[this.#kind[i]!]!]++;
    return counts;
  }
}
