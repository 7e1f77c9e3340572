import type { MemberState, MemberView } from './member.js';
import { isDown } from './member.js';
import { randomInt, shuffleInPlace, type Rng } from '../support/rng.js';

/** The mutable record behind a {@link MemberView}; only the core writes it. */
export interface MemberRecord {
  readonly name: string;
  address: string;
  meta: Uint8Array;
  incarnation: number;
  state: MemberState;
  stateChangedAt: number;
  /**
   * When it last answered one of our direct pings (undefined: never). Helpers are chosen among
   * these first. Set to undefined when the record is made, so every record has one shape.
   */
  ackedAt?: number | undefined;
}

export function viewOf(record: MemberRecord): MemberView {
  return {
    name: record.name,
    address: record.address,
    meta: record.meta,
    incarnation: record.incarnation,
    state: record.state,
    stateChangedAt: record.stateChangedAt,
  };
}

/**
 * Every member we know, ourselves and unreaped dead/left ones included (memberlist `nodes` +
 * `nodeMap`), in the shuffled order the probe cycle walks (SWIM §4.3 round-robin).
 */
export class MemberTable {
  readonly #byName = new Map<string, MemberRecord>();
  /**
   * Records by address: the record itself, as there is usually one per address; an array when a
   * member that restarted under a new name at the same address shares it with its old, dead
   * record until that one is reaped. (An array per address cost ~80 bytes per entry: with every
   * member holding every other, the per-entry cost decides how large a simulated cluster fits.)
   */
  readonly #byAddress = new Map<string, MemberRecord | MemberRecord[]>();
  readonly #order: MemberRecord[] = [];
  #probeIndex = 0;
  /**
   * False only when no record is dead (a walk found none and none died since): Membership sets it
   * on every death, FailedMembers clears it after a walk finds no dead record, so the reconnect
   * tick does not walk every member every interval in a healthy cluster.
   */
  mayHoldDead = false;

  constructor(private readonly rng: Rng) {}

  get size(): number {
    return this.#order.length;
  }

  get(name: string): MemberRecord | undefined {
    return this.#byName.get(name);
  }

  /** In probe order. Callers must not mutate the array. */
  all(): readonly MemberRecord[] {
    return this.#order;
  }

  /**
   * Add a member at a random position of the probe order (memberlist aliveNode step 4), so a new
   * member is probed within one pass on average rather than after everyone else.
   */
  add(record: MemberRecord): void {
    const n = this.#order.length;
    // Draw first: nothing changes if the generator throws.
    const j = n > 0 ? randomInt(this.rng, n) : 0;
    this.#byName.set(record.name, record);
    this.#index(record);
    this.#order.push(record);
    if (n > 0) {
      const swapped = this.#order[j]!;
      this.#order[j] = record;
      this.#order[n] = swapped;
    }
  }

  /** Move a member to a new address (a reclaimed name), keeping the address index right. */
  setAddress(record: MemberRecord, address: string): void {
    if (record.address === address) return;
    this.#unindex(record);
    record.address = address;
    this.#index(record);
  }

  /**
   * The records at `address`, ourselves included. Only records whose address is still `address`
   * count, so a record moved without {@link setAddress} is never reported at its old address.
   */
  atAddress(address: string): readonly MemberRecord[] {
    const records = this.#byAddress.get(address);
    if (records === undefined) return NONE;
    if (!Array.isArray(records)) {
      if (records.address === address) return [records];
      this.#byAddress.delete(address);
      return NONE;
    }
    let stale = false;
    for (let i = 0; i < records.length; i++) if (records[i]!.address !== address) stale = true;
    if (!stale) return records;
    const current = records.filter((r) => r.address === address);
    if (current.length === 0) this.#byAddress.delete(address);
    else this.#byAddress.set(address, current.length === 1 ? current[0]! : current);
    return current;
  }

  /** Whether a record at `address` (still at it, as in {@link atAddress}) passes `test`; allocates nothing. */
  someAt(address: string, test: (record: MemberRecord) => boolean): boolean {
    const records = this.#byAddress.get(address);
    if (records === undefined) return false;
    if (!Array.isArray(records)) return records.address === address && test(records);
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.address === address && test(record)) return true;
    }
    return false;
  }

  /** Whether a member other than `self` that has not left is known at `address` (alive, suspect or dead). */
  isMemberAddress(address: string, self?: MemberRecord): boolean {
    const records = this.#byAddress.get(address);
    if (records === undefined) return false;
    if (!Array.isArray(records)) return records.address === address && records !== self && records.state !== 'left';
    return records.some((r) => r.address === address && r !== self && r.state !== 'left');
  }

  /**
   * The next member to probe: round-robin over the order, skipping ourselves and dead/left
   * members, suspects included (memberlist probe). When a pass ends, dead/left members older
   * than `reapAfterMs` are removed and the order is reshuffled (memberlist resetNodes); `reaped`
   * collects their records.
   */
  nextProbeTarget(selfName: string, now: number, reapAfterMs: number, reaped: MemberRecord[]): MemberRecord | undefined {
    for (let checked = 0; checked < this.#order.length; ) {
      if (this.#probeIndex >= this.#order.length) {
        this.#resetPass(now, reapAfterMs, reaped);
        this.#probeIndex = 0;
        continue;
      }
      const candidate = this.#order[this.#probeIndex++]!;
      checked++;
      if (candidate.name === selfName || isDown(candidate.state)) continue;
      return candidate;
    }
    return undefined;
  }

  #resetPass(now: number, reapAfterMs: number, reaped: MemberRecord[]): void {
    let kept = 0;
    for (const record of this.#order) {
      if (isDown(record.state) && now - record.stateChangedAt > reapAfterMs) {
        this.#byName.delete(record.name);
        this.#unindex(record);
        reaped.push(record);
      } else {
        this.#order[kept++] = record;
      }
    }
    this.#order.length = kept;
    shuffleInPlace(this.rng, this.#order);
  }

  #index(record: MemberRecord): void {
    const records = this.#byAddress.get(record.address);
    if (records === undefined) this.#byAddress.set(record.address, record);
    else if (!Array.isArray(records)) {
      if (records !== record) this.#byAddress.set(record.address, [records, record]);
    } else if (!records.includes(record)) records.push(record);
  }

  #unindex(record: MemberRecord): void {
    const records = this.#byAddress.get(record.address);
    if (records === undefined) return;
    if (!Array.isArray(records)) {
      if (records === record) this.#byAddress.delete(record.address);
      return;
    }
    const at = records.indexOf(record);
    if (at < 0) return;
    records.splice(at, 1);
    if (records.length === 1) this.#byAddress.set(record.address, records[0]!);
  }
}

const NONE: readonly MemberRecord[] = Object.freeze([]);
