/**
 * The four member states of memberlist's `NodeStateType` (state.go). Dead and left are both
 * "down"; left is a dead message whose sender is the member itself (memberlist deadNode).
 */
export type MemberState = 'alive' | 'suspect' | 'dead' | 'left';

/** Wire order of the states, as memberlist's pushNodeState.State (0..3). */
export const MEMBER_STATES: readonly MemberState[] = ['alive', 'suspect', 'dead', 'left'];

/** A read-only view of one member, as handed to users and events. */
export interface MemberView {
  /** Unique key of the member in the cluster. */
  readonly name: string;
  /** Opaque address understood by the transport (for UDP: "host:port"). */
  readonly address: string;
  /** User metadata, bounded by `metaMaxBytes` (512 B by default, memberlist MetaMaxSize). */
  readonly meta: Uint8Array;
  /** Only the member itself raises its incarnation (SWIM §4.2, memberlist refute). */
  readonly incarnation: number;
  /** Its state as this member holds it. */
  readonly state: MemberState;
  /** Monotonic time (ms) of the last state change, as seen locally. */
  readonly stateChangedAt: number;
}

/** How many members a table holds in each state (the holder itself included). */
export type MemberCounts = Readonly<Record<MemberState, number>>;

/** True for the two down states, `dead` and `left`. */
export function isDown(state: MemberState): boolean {
  return state === 'dead' || state === 'left';
}
