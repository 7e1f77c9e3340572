/**
 * Every input of the core as serialisable data: a recorded `(now, input)` log plus the RNG seed
 * replays a run exactly. `SwimCore.step` takes these; the named methods are shorthands.
 */
export type Input =
  | {
      /** A packet arrived ({@link SwimCore.receivePacket}). Bad bytes give a `decode-error` effect, never a throw. */
      readonly type: 'packet';
      /** Transport address it came from, as the transport saw it. */
      readonly from: string;
      /** The packet as received. */
      readonly bytes: Uint8Array;
    }
  | {
      /** A peer opened a stream and sent one request ({@link SwimCore.receiveStream}); answered by a `stream-reply` effect. */
      readonly type: 'stream-request';
      /** Chosen by the shell; the `stream-reply` effect names it. */
      readonly streamId: number;
      /** Transport address of the peer. */
      readonly from: string;
      /** The request as read from the stream. */
      readonly bytes: Uint8Array;
    }
  | {
      /** The reply to a `stream-request` effect that expected one. */
      readonly type: 'stream-response';
      /** The effect's `requestId`. */
      readonly requestId: number;
      /** The reply as read from the stream. */
      readonly bytes: Uint8Array;
    }
  | {
      /** A `stream-request` effect failed: no connection, a write or read error, or past its `timeoutMs`. */
      readonly type: 'stream-failed';
      /** The effect's `requestId`. */
      readonly requestId: number;
      /** Why, for logs; a join reports it in `join-finished`. */
      readonly reason: string;
    }
  | {
      /** Time passed: run every deadline due ({@link SwimCore.tick}, armed at {@link SwimCore.nextDeadline}). */
      readonly type: 'tick';
    }
  | {
      /** Join through seed addresses ({@link SwimCore.join}). */
      readonly type: 'join';
      /** Addresses to push-pull with, one exchange each; none finishes the join at once. */
      readonly seeds: readonly string[];
      /** Chosen by the caller; the `join-finished` effect carries it. */
      readonly joinId: number;
    }
  | {
      /** Leave gracefully ({@link SwimCore.leave}). */
      readonly type: 'leave';
    }
  | {
      /**
       * Mark a failed member left, so that nobody reconnects to it ({@link SwimCore.forceLeave};
       * Serf RemoveFailedNode, `serf force-leave`). A dead member becomes left (a `left` event),
       * leaves the reconnect list and is gossiped as left; an alive or suspect one is not touched.
       * A name we hold in neither the table nor the reconnect list throws a RangeError.
       */
      readonly type: 'force-leave';
      /** The member's name. */
      readonly name: string;
      /** Also forget it at once rather than at the reap (Serf's `-prune`); default false. */
      readonly prune?: boolean;
    }
  | {
      /** Announce new metadata at a higher incarnation ({@link SwimCore.updateMeta}). */
      readonly type: 'update-meta';
      /** The new metadata, at most `metaMaxBytes`; more throws a RangeError. */
      readonly meta: Uint8Array;
    }
  | {
      /**
       * Our address changed ({@link SwimCore.move}; docs/design.md, "A member moves"): our
       * incarnation goes up by one and our alive, naming the address we left as `movedFrom`, is
       * gossiped, so members take the new address instead of reporting a conflict. The address must
       * be one the codec can carry (a RangeError otherwise); a move to the address we have, or
       * after leave, changes nothing.
       */
      readonly type: 'move';
      /** Where peers reach us from now on. */
      readonly address: string;
    }
  | {
      /** Spread a user broadcast to every member ({@link SwimCore.broadcast}). */
      readonly type: 'broadcast';
      /** Invalidation key, at most {@link MAX_KEY_BYTES} UTF-8 bytes: a newer broadcast under it replaces older ones in every queue. */
      readonly key: string;
      /** Application bytes; the encoded broadcast must fit one packet (`maxPacketBytes`), or the call throws a RangeError. */
      readonly payload: Uint8Array;
    }
  | {
      /** Send a user message to one member ({@link SwimCore.sendUser}). */
      readonly type: 'send-user';
      /** Name of a member we hold; any other name throws a RangeError. */
      readonly to: string;
      /** Application bytes. */
      readonly payload: Uint8Array;
      /** True: over a stream (a `stream-request` effect, purpose `user`); false: one packet, which must fit `maxPacketBytes`. */
      readonly reliable: boolean;
    }
  | {
      /** Set the application state sent in every push-pull (memberlist Delegate.LocalState). */
      readonly type: 'set-user-state';
      /** The state; empty sends none. */
      readonly state: Uint8Array;
    }
  | {
      /** Hold peers alive from the start, without gossip ({@link SwimCore.preload}). */
      readonly type: 'preload';
      /** The peers; ourselves and names we already hold are skipped. */
      readonly members: readonly PreloadedMember[];
    };

/**
 * A peer the `preload` input holds alive from the start: a member of a cluster that formed before
 * this one started (the simulator's pre-formed clusters, a member list saved across a restart).
 */
export interface PreloadedMember {
  /** Its name: not empty, at most {@link MAX_NAME_BYTES} UTF-8 bytes. */
  readonly name: string;
  /** Its address: not empty, one the codec can carry, and no live member's. */
  readonly address: string;
  /** The incarnation to hold it at: an integer from 0 to 2^32 − 1. */
  readonly incarnation: number;
  /** Default: none. */
  readonly meta?: Uint8Array;
}
