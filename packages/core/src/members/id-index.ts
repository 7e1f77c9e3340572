/**
 * Member ids by a string key (a name or an address): open addressing with linear probing over a
 * typed array of id + 1 (0: empty), the key of an id read from the table (`keyOf(id)`).
 * Several ids may share a key (an address held by a member and by its dead predecessor until it
 * is reaped).
 *
 * 2 bytes per slot (4 once an id passes 65,534) at a load of at most 0.7, where a Map costs ~28–56
 * bytes per entry: with every simulated member holding every other, the per-entry cost decides
 * how large a cluster fits.
 *
 * The hash is unkeyed (the core has no randomness of its own to key it with), so names built to
 * collide could make long probe runs: an entry is placed at most {@link MAX_PROBE} slots from its
 * home, anything further goes to a Map (V8 keys its string hashes per process), and a lookup
 * stops after MAX_PROBE slots too. A flood of colliding names costs what a Map costs, no more.
 */
/** What find returns for a key no id is indexed under. */
const NONE = -1;
/** Longest probe run: collisions past it go to the overflow Map. */
export const MAX_PROBE = 32;
const MAX_LOAD = 0.7;

/** FNV-1a over the UTF-16 code units, finished with murmur3's fmix32 (names n92/n93 differ in one bit). */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class IdIndex {
  /** id + 1 per slot, 0 when empty; Uint16Array until an id needs more. */
  #slots: Uint16Array | Int32Array = new Uint16Array(8);
  #mask = 7;
  /** Ids held in #slots. */
  #count = 0;
  /** Ids that found no free slot within MAX_PROBE of their home (colliding keys), by key. */
  readonly #overflow = new Map<string, number | number[]>();

  /** `keyOf(id)` is the key `id` is indexed under while it is in the index. */
  constructor(private readonly keyOf: (id: number) => string) {}

  /** Ids placed in the overflow Map (for tests of the collision bound). */
  get overflowed(): number {
    let n = 0;
    for (const ids of this.#overflow.values()) n += typeof ids === 'number' ? 1 : ids.length;
    return n;
  }

  /** The first id indexed under `key` (the only one, for names); -1 if none. */
  find(key: string): number {
    const { keyOf } = this;
    const slots = this.#slots;
    const mask = this.#mask;
    let at = hashKey(key) & mask;
    for (let step = 0; step < MAX_PROBE; step++) {
      const id = slots[at]! - 1;
      if (id < 0) break;
      if (keyOf(id) === key) return id;
      at = (at + 1) & mask;
    }
    if (this.#overflow.size === 0) return NONE;
    const ids = this.#overflow.get(key);
    return ids === undefined ? NONE : typeof ids === 'number' ? ids : ids[0]!;
  }

  /** Whether an id indexed under `key` passes `test`; allocates nothing. */
  some(key: string, test: (id: number) => boolean): boolean {
    const { keyOf } = this;
    const slots = this.#slots;
    const mask = this.#mask;
    let at = hashKey(key) & mask;
    for (let step = 0; step < MAX_PROBE; step++) {
      const id = slots[at]! - 1;
      if (id < 0) break;
      if (keyOf(id) === key && test(id)) return true;
      at = (at + 1) & mask;
    }
    if (this.#overflow.size === 0) return false;
    const ids = this.#overflow.get(key);
    if (ids === undefined) return false;
    if (typeof ids === 'number') return test(ids);
    for (let i = 0; i < ids.length; i++) if (test(ids[i]!)) return true;
    return false;
  }

  /** Index `id` under `keyOf(id)`. */
  insert(id: number): void {
    if (id >= 0xffff && this.#slots instanceof Uint16Array) this.#rebuild(new Int32Array(this.#slots.length));
    if (this.#count + 1 > MAX_LOAD * (this.#mask + 1)) this.#rebuild(new (this.#slots.constructor as typeof Int32Array)(2 * this.#slots.length));
    this.#place(id);
  }

  /** Remove `id`, indexed under `keyOf(id)` (call before the key changes). */
  remove(id: number): void {
    const key = this.keyOf(id);
    const slots = this.#slots;
    const mask = this.#mask;
    let at = hashKey(key) & mask;
    for (let step = 0; step < MAX_PROBE; step++) {
      const held = slots[at]! - 1;
      if (held < 0) break;
      if (held === id) {
        this.#count--;
        this.#shiftBack(at);
        return;
      }
      at = (at + 1) & mask;
    }
    const ids = this.#overflow.get(key);
    if (ids === undefined) return;
    if (typeof ids === 'number') {
      if (ids === id) this.#overflow.delete(key);
      return;
    }
    const i = ids.indexOf(id);
    if (i >= 0) ids.splice(i, 1);
    if (ids.length === 1) this.#overflow.set(key, ids[0]!);
  }

  #place(id: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    const key = this.keyOf(id);
    let at = hashKey(key) & mask;
    for (let step = 0; step < MAX_PROBE; step++) {
      if (slots[at] === 0) {
        slots[at] = id + 1;
        this.#count++;
        return;
      }
      at = (at + 1) & mask;
    }
    const ids = this.#overflow.get(key);
    if (ids === undefined) this.#overflow.set(key, id);
    else if (typeof ids === 'number') this.#overflow.set(key, [ids, id]);
    else ids.push(id);
  }

  /**
   * Backward-shift deletion (Knuth 6.4, algorithm R): move later entries of the run into the
   * hole when their home allows, so no tombstones are needed and every entry stays reachable
   * from its home without crossing an empty slot. Entries only move closer to their home.
   */
  #shiftBack(hole: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    const { keyOf } = this;
    let at = hole;
    for (;;) {
      at = (at + 1) & mask;
      const held = slots[at]!;
      if (held === 0) break;
      const home = hashKey(keyOf(held - 1)) & mask;
      // The entry stays unless its home lies cyclically outside (hole, at].
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at;
      if (stays) continue;
      slots[hole] = held;
      hole = at;
    }
    slots[hole] = 0;
  }

  /** Re-place every id into `slots` (empty; larger, or wider). */
  #rebuild(slots: Uint16Array | Int32Array): void {
    const old = this.#slots;
    const overflowed: number[] = [];
    for (const ids of this.#overflow.values()) {
      if (typeof ids === 'number') overflowed.push(ids);
      else overflowed.push(...ids);
    }
    this.#overflow.clear();
    this.#slots = slots;
    this.#mask = slots.length - 1;
    this.#count = 0;
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.#place(old[i]! - 1);
    for (const id of overflowed) this.#place(id);
  }
}
