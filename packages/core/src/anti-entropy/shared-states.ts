import type { WireCodec } from '../codec/wire-codec.js';

/**
 * Push-pull states encoded lately in this process, shared by every core in it: a member about to
 * encode its state finds the bytes another member holding the same entries encoded already.
 *
 * A simulated cluster of n members in one process (and a bench's real-UDP cluster) holds n equal
 * tables once quiet, and each member sorts its n entries by name and encodes them for every
 * periodic exchange: n/interval exchanges a second, each O(n log n). Keyed by what the bytes are a
 * function of: the codec, the protocol version, the join flag, the table's size and content print
 * (MemberTable.contentPrint), and an empty user state (a state carrying user state is not shared).
 * A process running one member never hits and keeps at most a few states.
 */
export interface SharedState {
  readonly bytes: Uint8Array;
  /** state-digest.ts hashState of the bytes. */
  readonly hashA: number;
  readonly hashB: number;
  /** No suspect entry in it (state-digest.ts OwnState.mergeFree). */
  readonly mergeFree: boolean;
}

/** States kept per codec at most, the oldest dropped first: one quiet cluster needs one. */
export const MAX_SHARED_STATES = 4;

const BY_CODEC = new WeakMap<WireCodec, Map<string, SharedState>>();

export function stateKey(join: boolean, size: number, print: { readonly a: number; readonly b: number }, version: number | undefined): string {
  return `${join ? 1 : 0}:${size}:${print.a}:${print.b}:${version ?? ''}`;
}

export function sharedState(codec: WireCodec, key: string): SharedState | undefined {
  return BY_CODEC.get(codec)?.get(key);
}

export function shareState(codec: WireCodec, key: string, state: SharedState): void {
  let states = BY_CODEC.get(codec);
  if (states === undefined) BY_CODEC.set(codec, (states = new Map()));
  if (states.has(key)) return;
  if (states.size >= MAX_SHARED_STATES) states.delete(states.keys().next().value!);
  states.set(key, state);
}

/** States kept now for `codec` (for the test of the bound). */
export function sharedStates(codec: WireCodec): number {
  return BY_CODEC.get(codec)?.size ?? 0;
}
