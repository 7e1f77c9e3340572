/**
 * memberlist protocol versions. Every alive message and push-pull entry carries a Vsn of six
 * bytes: [pmin, pmax, pcur, dmin, dmax, dcur], memberlist's own protocol range and current
 * version, then the delegate's (Serf's protocol, for a Serf cluster).
 */

export type Vsn = readonly [number, number, number, number, number, number];

/** What Serf 0.9 advertises: memberlist 1..5 speaking 2, Serf protocol 2..5 speaking 5. */
export const SERF_VSN: Vsn = Object.freeze([1, 5, 2, 2, 5, 5]) as Vsn;

export const VSN_BYTES = 6;

/**
 * Why an alive (gossiped or merged) carrying `vsn` must be ignored, or undefined. memberlist
 * aliveNode ignores pmin 0, pmax 0 and pmin > pmax; memberlist 0.2 indexes all six bytes of any
 * Vsn of 3 bytes or more and panics on a short one (a Serf 0.9 agent crashes), so anything but
 * six bytes is refused too: such an alive must never reach the core, which would relay it.
 */
export function aliveVsnProblem(vsn: Uint8Array): string | undefined {
  if (vsn.length !== VSN_BYTES) return `a Vsn of ${vsn.length} bytes, not ${VSN_BYTES}`;
  const [pmin, pmax] = [vsn[0]!, vsn[1]!];
  if (pmin === 0 || pmax === 0 || pmin > pmax) return `protocol range ${pmin}..${pmax} is wrong`;
  return undefined;
}

/** An entry of a push-pull, as memberlist verifyProtocol sees it. */
export interface VersionedEntry {
  /** The member's name (memberlist pushNodeState.Name). */
  readonly name: string;
  /** Whether its state is alive: only alive entries narrow the accepted version range. */
  readonly alive: boolean;
  /** As received: 0 bytes (no Vsn), 6, or another length (refused). */
  readonly vsn: Uint8Array;
}

/**
 * memberlist verifyProtocol over a push-pull's entries and our own Vsn (the local table, as far
 * as this codec knows it: the member itself, alive). The bounds are the highest pmin and dmin and
 * the lowest pmax and dmax over the alive entries that have a Vsn; then every entry, alive or not,
 * must have pcur and dcur within them (an entry without Vsn counts as version 0, so it fails). A
 * Vsn that is neither empty nor six bytes is refused outright: Go panics on it.
 */
export function verifyProtocol(remote: readonly VersionedEntry[], own: Vsn): string | undefined {
  for (const entry of remote) {
    if (entry.vsn.length !== 0 && entry.vsn.length !== VSN_BYTES) {
      return `members entry has a Vsn of ${entry.vsn.length} bytes, not ${VSN_BYTES}`;
    }
  }
  let maxPmin = own[0];
  let minPmax = own[1];
  let maxDmin = own[3];
  let minDmax = own[4];
  for (const entry of remote) {
    if (!entry.alive || entry.vsn.length === 0) continue;
    const vsn = entry.vsn;
    maxPmin = Math.max(maxPmin, vsn[0]!);
    minPmax = Math.min(minPmax, vsn[1]!);
    maxDmin = Math.max(maxDmin, vsn[3]!);
    minDmax = Math.min(minDmax, vsn[4]!);
  }
  const check = (pcur: number, dcur: number): string | undefined => {
    if (pcur < maxPmin || pcur > minPmax) return `protocol version ${pcur} is incompatible: [${maxPmin}, ${minPmax}]`;
    if (dcur < maxDmin || dcur > minDmax) return `delegate protocol version ${dcur} is incompatible: [${maxDmin}, ${minDmax}]`;
    return undefined;
  };
  for (const entry of remote) {
    const problem = entry.vsn.length === 0 ? check(0, 0) : check(entry.vsn[2]!, entry.vsn[5]!);
    if (problem !== undefined) return `a members entry's ${problem}`;
  }
  const ownProblem = check(own[2], own[5]);
  return ownProblem === undefined ? undefined : `our own ${ownProblem}`;
}

/** Problems of a Vsn given as an option: six bytes, a sane range, each current version inside its range. */
export function vsnOptionProblems(vsn: unknown): string[] {
  if (!Array.isArray(vsn) || vsn.length !== VSN_BYTES || !vsn.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) {
    return ['vsn must be six integers 0..255: [pmin, pmax, pcur, dmin, dmax, dcur]'];
  }
  const [pmin, pmax, pcur, dmin, dmax, dcur] = vsn as number[];
  const problems: string[] = [];
  const alive = aliveVsnProblem(Uint8Array.from(vsn as number[]));
  if (alive !== undefined) problems.push(`vsn: ${alive} (memberlist would ignore our alive)`);
  if (pcur! < pmin! || pcur! > pmax!) problems.push(`vsn: pcur ${pcur} is outside pmin..pmax ${pmin}..${pmax}`);
  if (dcur! < dmin! || dcur! > dmax!) problems.push(`vsn: dcur ${dcur} is outside dmin..dmax ${dmin}..${dmax}`);
  return problems;
}

/**
 * Peers' Vsn by node name, learned from alives and push-pull entries, so that an alive or entry
 * we relay carries the member's own Vsn (memberlist keeps and resends it). Bounded: the oldest
 * learned name is forgotten first, and a forgotten member is relayed with our own Vsn. Our own
 * name is never learned: a peer gossiping it with another Vsn must not change what we advertise.
 */
export class VsnCache {
  readonly #max: number;
  readonly #byName = new Map<string, Uint8Array>();
  #ownName: string | undefined;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#byName.size;
  }

  get(name: string): Uint8Array | undefined {
    return this.#byName.get(name);
  }

  /** The name of the member this cache serves: from now on never learned (what was is forgotten). */
  setOwnName(name: string): void {
    this.#ownName = name;
    this.#byName.delete(name);
  }

  /** Remember a valid six-byte Vsn (the caller checked it); the array must not change afterwards. */
  learn(name: string, vsn: Uint8Array): void {
    if (name === this.#ownName) return;
    const known = this.#byName.get(name);
    if (known !== undefined) {
      if (sameVsn(known, vsn)) return;
      this.#byName.delete(name);
    }
    if (this.#max === 0) return;
    this.#byName.set(name, vsn);
    if (this.#byName.size > this.#max) {
      const oldest = this.#byName.keys().next();
      if (oldest.done !== true) this.#byName.delete(oldest.value);
    }
  }
}

function sameVsn(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < VSN_BYTES; i++) if (a[i] !== b[i]) return false;
  return true;
}
