/**
 * Every input of the core as serialisable data: a recorded `(now, input)` log plus the RNG seed
 * replays a run exactly. `SwimCore.step` takes these; the named methods are shorthands.
 */
export type Input =
  | { readonly type: 'packet'; readonly from: string; readonly bytes: Uint8Array }
  | { readonly type: 'stream-request'; readonly streamId: number; readonly from: string; readonly bytes: Uint8Array }
  | { readonly type: 'stream-response'; readonly requestId: number; readonly bytes: Uint8Array }
  | { readonly type: 'stream-failed'; readonly requestId: number; readonly reason: string }
  | { readonly type: 'tick' }
  | { readonly type: 'join'; readonly seeds: readonly string[]; readonly joinId: number }
  | { readonly type: 'leave' }
  | { readonly type: 'update-meta'; readonly meta: Uint8Array }
  | { readonly type: 'broadcast'; readonly key: string; readonly payload: Uint8Array }
  | { readonly type: 'send-user'; readonly to: string; readonly payload: Uint8Array; readonly reliable: boolean }
  | { readonly type: 'set-user-state'; readonly state: Uint8Array }
  | { readonly type: 'preload'; readonly members: readonly PreloadedMember[] };

/**
 * A peer the `preload` input holds alive from the start: a member of a cluster that formed before
 * this one started (the simulator's pre-formed clusters, a member list saved across a restart).
 */
export interface PreloadedMember {
  readonly name: string;
  readonly address: string;
  readonly incarnation: number;
  /** Default: none. */
  readonly meta?: Uint8Array;
}
