import type { MemberCounts, MemberState, MemberView } from './member.js';
import { MEMBER_STATES } from './member.js';
import type { KnownMember } from './merge.js';
import { IdIndex } from './id-index.js';
import { identityOf, type Identity } from './identity.js';
import { MAX_PROTOCOL_VERSION, type ProtocolRange } from '../codec/protocol-range.js';
import { bytesEqual, EMPTY_BYTES } from '../support/bytes.js';
import { fmix32, randomInt, shuffleInPlace, type Rng } from '../support/rng.js';

/**
 * A member's slot in its table's columns. Valid from {@link MemberTable.add} until the probe pass
 * reaps the member ({@link MemberTable.nextProbeTarget}); the slot is then reused.
 */
export type MemberId = number;

/** No member: what {@link MemberTable.idOf} returns for a name it does not hold. */
export const NO_MEMBER: MemberId = -1;

const STATE_CODE: Readonly<Record<MemberState, number>> = { alive: 0, suspect: 1, dead: 2, left: 3 };
const DEAD = STATE_CODE.dead;
const LEFT = STATE_CODE.left;
/** State code of a slot no member holds. */
const FREE = 4;
/**
 * A member's row: (incarnation × 8 + state code), the time of its last state change, and when it
 * last acked. Doubles hold the uint32 incarnation times 8 exactly (below 2^35). One row, not a
 * column per field: a packet's updates hit members at random, and the merge reads all three.
 */
const ROW = 3;
const VERSION = 0;
const CHANGED_AT = 1;
const ACKED_AT = 2;
/** Never acked (any time compares below it). */
const NEVER = -Infinity;
const INITIAL_CAPACITY = 8;
/** The identity of a free slot. */
const NOBODY: Identity = { name: '', address: '', meta: EMPTY_BYTES, movedFrom: undefined, serial: 0 };
const TWO_32 = 2 ** 32;

/** One member entry's share of a content print, lane A: its identity and (incarnation × 8 + state). */
function printA(serial: number, version: number): number {
  return fmix32(Math.imul(serial, 0x9e3779b1) ^ fmix32((version >>> 0) ^ Math.imul(Math.floor(version / TWO_32), 0x85ebca6b)));
}

/** Lane B, independent of lane A. */
function printB(serial: number, version: number): number {
  return fmix32(fmix32(serial ^ 0x5bd1e995) + Math.imul((version >>> 0) ^ 0x27d4eb2f, 0xc2b2ae35) + Math.floor(version / TWO_32));
}

/**
 * Every member we know, ourselves and unreaped dead/left ones included (memberlist `nodes` +
 * `nodeMap`), in the shuffled order the probe cycle walks (SWIM §4.3 round-robin).
 *
 * Compact: per member a row of three doubles ({@link ROW}: incarnation and state, state change
 * time, last ack) and one reference to its {@link Identity} (name, address and meta, shared by
 * every table in the process), behind open-addressing indexes by name and by address
 * ({@link IdIndex}). About 50 bytes per member held, where an object per member and two Maps
 * cost 210–320: a simulated process holds n² of them. Callers hold {@link MemberId}s and read or
 * write through the table.
 */
export class MemberTable {
  readonly #identities: Identity[] = [];
  /** {@link ROW} doubles per slot. */
  #rows = new Float64Array(INITIAL_CAPACITY * ROW);
  /** Slots the rows have room for. */
  #capacity = INITIAL_CAPACITY;
  /** Ids in probe order; the first #size are members. */
  #order = new Int32Array(INITIAL_CAPACITY);
  #size = 0;
  #orderView: Int32Array | undefined;
  /** Slots of reaped members, reused by the next adds. */
  readonly #free: MemberId[] = [];
  /**
   * Each member's protocol range as it announced it (protocol-range.ts), min and max; 0 while
   * unknown (a member of 0.1.0 announces none: it speaks version 1). A column each, not in the
   * rows: only negotiation reads them.
   */
  #protocolMin = new Uint8Array(INITIAL_CAPACITY);
  #protocolMax = new Uint8Array(INITIAL_CAPACITY);
  /**
   * Live (alive or suspect) members, ourselves included, by the newest protocol version each speaks
   * (unknown counting as 1), and by the oldest: the negotiated version and the cluster's range
   * without a pass over the table.
   */
  readonly #liveByMax = new Int32Array(MAX_PROTOCOL_VERSION + 1);
  readonly #liveByMin = new Int32Array(MAX_PROTOCOL_VERSION + 1);
  readonly #byName = new IdIndex((id) => this.#identities[id]!.name);
  readonly #byAddress = new IdIndex((id) => this.#identities[id]!.address);
  #probeIndex = 0;
  /** What {@link known} hands out: one object, refreshed per call. */
  readonly #known: { incarnation: number; state: MemberState; address: string; meta: Uint8Array; stateChangedAt: number; movedFrom: string | undefined } = {
    incarnation: 0,
    state: 'alive',
    address: '',
    meta: EMPTY_BYTES,
    stateChangedAt: 0,
    movedFrom: undefined,
  };
  /**
   * False only when no record is dead (a walk found none and none died since): Membership sets it
   * on every death, FailedMembers clears it after a walk finds no dead record, so the reconnect
   * tick does not walk every member every interval in a healthy cluster.
   */
  mayHoldDead = false;
  /**
   * Bumped by every change a push-pull state would show: a member added or released, or its
   * incarnation, state, meta or address set (anti-entropy keeps a digest of its state until then).
   */
  #changes = 0;
  /** Bumped when a member is added or released: the set of names, not what is known of them. */
  #rosterChanges = 0;
  /** {@link contentPrint} as last taken without and with ranges, and the change counts they were taken at. */
  #print = { a: 0, b: 0 };
  #printAt = -1;
  #rangedPrint = { a: 0, b: 0 };
  #rangedPrintAt = -1;

  constructor(private readonly rng: Rng) {}

  get changes(): number {
    return this.#changes;
  }

  get rosterChanges(): number {
    return this.#rosterChanges;
  }

  /**
   * A fingerprint of the entries a push-pull state shows (each member's identity, incarnation and
   * state, and with `withRanges` its protocol range, as entries of version 2 on carry it): per lane, the sum mod 2³² of each entry's mix. Order-free, so two tables (of this
   * process) holding the same entries have the same print whatever order they learned them in;
   * unequal tables collide with a chance of about 2⁻⁶⁴ (with the size, compared besides), and
   * identities' serials are the process's own, so a peer cannot aim at a collision. Taken in one
   * pass when asked after a change (only push-pull encoding asks), not kept up by every setter on
   * the receive path.
   */
  contentPrint(withRanges: boolean): { readonly a: number; readonly b: number } {
    if ((withRanges ? this.#rangedPrintAt : this.#printAt) === this.#changes) return withRanges ? this.#rangedPrint : this.#print;
    let a = 0;
    let b = 0;
    const order = this.#order;
    for (let i = 0; i < this.#size; i++) {
      const id = order[i]!;
      const serial = this.#identities[id]!.serial;
      let version = this.#rows[id * ROW + VERSION]!;
      // The protocol range above the incarnation's 35 bits, when entries carry it (version 2 on).
      if (withRanges) version += (this.#protocolMin[id]! * 256 + this.#protocolMax[id]!) * 2 ** 35;
      a = (a + printA(serial, version)) | 0;
      b = (b + printB(serial, version)) | 0;
    }
    const print = { a: a >>> 0, b: b >>> 0 };
    if (withRanges) {
      this.#rangedPrint = print;
      this.#rangedPrintAt = this.#changes;
    } else {
      this.#print = print;
      this.#printAt = this.#changes;
    }
    return print;
  }

  get size(): number {
    return this.#size;
  }

  /** The id of the member called `name`; {@link NO_MEMBER} if we hold none. */
  idOf(name: string): MemberId {
    return this.#byName.find(name);
  }

  /** Ids in probe order. Valid until the next add or reap; callers must not mutate it. */
  all(): Int32Array {
    return (this.#orderView ??= this.#order.subarray(0, this.#size));
  }

  name(id: MemberId): string {
    return this.#identities[id]!.name;
  }

  address(id: MemberId): string {
    return this.#identities[id]!.address;
  }

  meta(id: MemberId): Uint8Array {
    return this.#identities[id]!.meta;
  }

  incarnation(id: MemberId): number {
    return Math.floor(this.#rows[id * ROW + VERSION]! / 8);
  }

  state(id: MemberId): MemberState {
    return MEMBER_STATES[this.#rows[id * ROW + VERSION]! & 7]!;
  }

  /** Local time (ms) of the member's last state change. */
  stateChangedAt(id: MemberId): number {
    return this.#rows[id * ROW + CHANGED_AT]!;
  }

  /** When it last answered one of our direct pings (helpers are chosen among these first); -Infinity if never. */
  ackedAt(id: MemberId): number {
    return this.#rows[id * ROW + ACKED_AT]!;
  }

  isDown(id: MemberId): boolean {
    return (this.#rows[id * ROW + VERSION]! & 7) >= DEAD;
  }

  setIncarnation(id: MemberId, incarnation: number): void {
    this.#changes++;
    const at = id * ROW + VERSION;
    this.#rows[at] = incarnation * 8 + (this.#rows[at]! & 7);
  }

  setMeta(id: MemberId, meta: Uint8Array): void {
    const { name, address, meta: held, movedFrom } = this.#identities[id]!;
    if (held === meta || bytesEqual(held, meta)) return;
    this.#changes++;
    this.#identities[id] = identityOf(name, address, meta, movedFrom);
  }

  setState(id: MemberId, state: MemberState, changedAt: number): void {
    this.#changes++;
    const at = id * ROW;
    const version = this.#rows[at + VERSION]!;
    const code = STATE_CODE[state];
    const wasLive = (version & 7) < DEAD;
    if (wasLive !== code < DEAD) this.#countLive(id, wasLive ? -1 : 1);
    this.#rows[at + VERSION] = version - (version & 7) + code;
    this.#rows[at + CHANGED_AT] = changedAt;
  }

  /** The protocol range `id` announced; undefined while it announced none. */
  protocol(id: MemberId): ProtocolRange | undefined {
    const max = this.#protocolMax[id]!;
    return max === 0 ? undefined : { min: this.#protocolMin[id]!, max };
  }

  /** Hold `range` as the protocol range of `id` (undefined: unknown again). */
  setProtocol(id: MemberId, range: ProtocolRange | undefined): void {
    const min = range?.min ?? 0;
    const max = range?.max ?? 0;
    if (this.#protocolMin[id] === min && this.#protocolMax[id] === max) return;
    this.#changes++;
    const live = !this.isDown(id);
    if (live) this.#countLive(id, -1);
    this.#protocolMin[id] = min;
    this.#protocolMax[id] = max;
    if (live) this.#countLive(id, 1);
  }

  /** The newest version every live member speaks: the lowest max among them (unknown counting as 1). */
  lowestLiveMax(): number {
    const counts = this.#liveByMax;
    for (let v = 1; v <= MAX_PROTOCOL_VERSION; v++) if (counts[v]! > 0) return v;
    return 1;
  }

  /** The oldest version every live member still speaks: the highest min among them (unknown counting as 1). */
  highestLiveMin(): number {
    const counts = this.#liveByMin;
    for (let v = MAX_PROTOCOL_VERSION; v > 1; v--) if (counts[v]! > 0) return v;
    return 1;
  }

  #countLive(id: MemberId, delta: number): void {
    this.#liveByMax[this.#protocolMax[id]! || 1]! += delta;
    this.#liveByMin[this.#protocolMin[id]! || 1]! += delta;
  }

  setAckedAt(id: MemberId, at: number): void {
    this.#rows[id * ROW + ACKED_AT] = at;
  }

  /**
   * How many members are in each state, in one pass over the rows: what a caller that only counts
   * (a convergence check, a metrics gauge) needs, without a view per member.
   */
  countByState(): MemberCounts {
    const counts = [0, 0, 0, 0];
    const rows = this.#rows;
    const order = this.#order;
    for (let i = 0; i < this.#size; i++) counts[rows[order[i]! * ROW + VERSION]! & 7]!++;
    return { alive: counts[0]!, suspect: counts[1]!, dead: counts[2]!, left: counts[3]! };
  }

  /** A read-only view for users and events (a copy: later changes do not show in it). */
  view(id: MemberId): MemberView {
    const { name, address, meta } = this.#identities[id]!;
    return {
      name,
      address,
      meta,
      incarnation: this.incarnation(id),
      state: this.state(id),
      stateChangedAt: this.stateChangedAt(id),
    };
  }

  /**
   * What the merge rules need about a member (merge.ts), in one object the table refreshes on every
   * call: read it before the next call, never keep it. Undefined for {@link NO_MEMBER}.
   */
  known(id: MemberId): KnownMember | undefined {
    if (id === NO_MEMBER) return undefined;
    const known = this.#known;
    const rows = this.#rows;
    const at = id * ROW;
    const version = rows[at + VERSION]!;
    const code = version & 7;
    known.incarnation = (version - code) / 8;
    known.state = MEMBER_STATES[code]!;
    const identity = this.#identities[id]!;
    known.address = identity.address;
    known.meta = identity.meta;
    known.movedFrom = identity.movedFrom;
    known.stateChangedAt = rows[at + CHANGED_AT]!;
    return known;
  }

  /**
   * Add a member at a random position of the probe order (memberlist aliveNode step 4), so a new
   * member is probed within one pass on average rather than after everyone else. The caller has
   * checked that no member of that name is held.
   */
  add(name: string, address: string, meta: Uint8Array, incarnation: number, state: MemberState, changedAt: number): MemberId {
    const n = this.#size;
    // Draw first: nothing changes if the generator throws.
    const j = n > 0 ? randomInt(this.rng, n) : 0;
    this.#changes++;
    this.#rosterChanges++;
    const id = this.#allocate();
    this.#identities[id] = identityOf(name, address, meta);
    const rows = this.#rows;
    const at = id * ROW;
    rows[at + VERSION] = incarnation * 8 + STATE_CODE[state];
    rows[at + CHANGED_AT] = changedAt;
    rows[at + ACKED_AT] = NEVER;
    this.#protocolMin[id] = 0;
    this.#protocolMax[id] = 0;
    if (STATE_CODE[state] < DEAD) this.#countLive(id, 1);
    this.#byName.insert(id);
    this.#byAddress.insert(id);
    const order = this.#order;
    order[n] = id;
    if (n > 0) {
      order[n] = order[j]!;
      order[j] = id;
    }
    this.#size = n + 1;
    this.#orderView = undefined;
    return id;
  }

  /**
   * Move a member to a new address, keeping the address index right: a reclaimed name (no
   * `movedFrom`), or a member that announced its move from `movedFrom` (docs/design.md, "A member
   * moves"), which we then gossip on with it.
   */
  setAddress(id: MemberId, address: string, movedFrom?: string): void {
    const identity = this.#identities[id]!;
    if (identity.address === address && identity.movedFrom === movedFrom) return;
    this.#changes++;
    this.#byAddress.remove(id);
    this.#identities[id] = identityOf(identity.name, address, identity.meta, movedFrom);
    this.#byAddress.insert(id);
  }

  /** The address `id` announced it moved from, as we applied it; undefined if none. */
  movedFrom(id: MemberId): string | undefined {
    return this.#identities[id]!.movedFrom;
  }

  /** The members at `address`, ourselves included. */
  atAddress(address: string): MemberId[] {
    const found: MemberId[] = [];
    this.#byAddress.some(address, (id) => {
      found.push(id);
      return false;
    });
    return found;
  }

  /** Whether a member at `address` passes `test`; allocates nothing. */
  someAt(address: string, test: (id: MemberId) => boolean): boolean {
    return this.#byAddress.some(address, test);
  }

  /** Whether a member other than `except` that has not left is known at `address` (alive, suspect or dead). */
  isMemberAddress(address: string, except: MemberId = NO_MEMBER): boolean {
    return this.#byAddress.some(address, (id) => id !== except && (this.#rows[id * ROW + VERSION]! & 7) !== LEFT);
  }

  /**
   * The next member to probe: round-robin over the order, skipping `self` and dead/left
   * members, suspects included (memberlist probe). When a pass ends, dead/left members older
   * than `reapAfterMs` are removed and the order is reshuffled (memberlist resetNodes); `reaped`
   * collects views of them (their ids are reused from then on).
   */
  nextProbeTarget(self: MemberId, now: number, reapAfterMs: number, reaped: MemberView[]): MemberId | undefined {
    for (let checked = 0; checked < this.#size; ) {
      if (this.#probeIndex >= this.#size) {
        this.#resetPass(now, reapAfterMs, reaped);
        this.#probeIndex = 0;
        continue;
      }
      const candidate = this.#order[this.#probeIndex++]!;
      checked++;
      if (candidate === self || this.isDown(candidate)) continue;
      return candidate;
    }
    return undefined;
  }

  /** Remove one member at once, outside the probe pass's reap (force-leave's prune); the probe order keeps its place. */
  remove(id: MemberId): void {
    const order = this.#order;
    const at = order.subarray(0, this.#size).indexOf(id);
    if (at < 0) return;
    order.copyWithin(at, at + 1, this.#size);
    this.#size--;
    if (at < this.#probeIndex) this.#probeIndex--;
    this.#orderView = undefined;
    this.#release(id);
  }

  #resetPass(now: number, reapAfterMs: number, reaped: MemberView[]): void {
    const order = this.#order;
    let kept = 0;
    for (let i = 0; i < this.#size; i++) {
      const id = order[i]!;
      if (this.isDown(id) && now - this.stateChangedAt(id) > reapAfterMs) {
        reaped.push(this.view(id));
        this.#release(id);
      } else {
        order[kept++] = id;
      }
    }
    this.#size = kept;
    this.#orderView = undefined;
    shuffleInPlace(this.rng, this.all());
  }

  #allocate(): MemberId {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    const id = this.#identities.length;
    // Keep the reference column packed (no holes): a slot is pushed before it is written.
    this.#identities.push(NOBODY);
    if (id >= this.#capacity) this.#grow(id + 1);
    return id;
  }

  #release(id: MemberId): void {
    if (!this.isDown(id)) this.#countLive(id, -1);
    this.#changes++;
    this.#rosterChanges++;
    this.#byName.remove(id);
    this.#byAddress.remove(id);
    this.#identities[id] = NOBODY;
    this.#rows[id * ROW + VERSION] = FREE;
    this.#free.push(id);
  }

  /** Grow the rows and the order by half (not double: at n² entries the slack is what costs). */
  #grow(needed: number): void {
    const capacity = Math.max(needed, Math.ceil(this.#capacity * 1.5));
    this.#capacity = capacity;
    this.#rows = grown(this.#rows, new Float64Array(capacity * ROW));
    this.#order = grown(this.#order, new Int32Array(capacity));
    this.#protocolMin = grown(this.#protocolMin, new Uint8Array(capacity));
    this.#protocolMax = grown(this.#protocolMax, new Uint8Array(capacity));
    this.#orderView = undefined;
  }
}

function grown<T extends Uint8Array | Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}
