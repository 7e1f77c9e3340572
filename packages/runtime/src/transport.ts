/**
 * What a transport does for a member: move bytes. Packets are best effort (UDP datagrams,
 * WebSocket frames); streams are reliable request/response exchanges (TCP connections) used for
 * push-pull, join, the fallback ping and reliable user messages. The core decides what to send
 * and when; transports never interpret the bytes.
 */
export interface Transport {
  /**
   * The address peers reach this member at (the advertise address). A transport whose address
   * can change (a browser member that reconnected through another gateway) reports the new one
   * through {@link onAddressChange} and returns it here from then on.
   */
  readonly address: string;
  /** Largest packet the transport carries; the core fills packets up to it (its MTU). */
  readonly maxPacketBytes: number;
  /** False for packet-only transports: the core then skips the fallback stream ping. */
  readonly supportsStreams: boolean;
  /** Start delivering incoming traffic to `handlers`. Called once. */
  listen(handlers: TransportHandlers): void;
  /** Best effort: may be lost, reordered or duplicated. Must not throw on unreachable peers. */
  sendPacket(to: string, bytes: Uint8Array): void;
  /**
   * Open a stream to `to`, write `bytes`, and read one reply when `expectReply`. `done` is called
   * exactly once: with the reply (or no bytes when none was expected), or with a failure reason,
   * at the latest after `timeoutMs`.
   */
  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void;
  /** Stop listening and release resources; idempotent. Pending requests fail. */
  close(): Promise<void>;
  /**
   * Optional: every address `address` stands for, e.g. a "host:port" whose host name has A and
   * AAAA records gives one "ip:port" per record; an IP literal gives itself. `join` calls it for
   * every seed at every attempt and tries every address found (Serf's retry-join does the same);
   * without it seeds are dialled as given. Rejects when the name does not resolve.
   */
  resolve?(address: string): Promise<readonly string[]>;
  /**
   * Optional, for a transport whose address can change while it runs: call `listener` with the
   * new address each time it changes, after {@link address} returns it, and never after the
   * returned function (unsubscribe) was called. The member subscribes when it starts, and
   * unsubscribes in `close()`; on each change it moves (the core's `move` input: its next
   * incarnation is announced with the address it left, so peers take the new address instead of
   * reporting a conflict; docs/design.md, "A member moves"). Packets from the old address are
   * no longer the member's once it moved. Without it the address is fixed for the transport's life.
   */
  onAddressChange?(listener: (address: string) => void): () => void;
}

/** How one stream request of {@link Transport.request} behaves. */
export interface StreamOptions {
  /** Milliseconds after which the request fails if it has not finished (connect, write and reply included). */
  readonly timeoutMs: number;
  /** Whether to read one reply; when false the request succeeds once the bytes are written. */
  readonly expectReply: boolean;
}

/** The outcome of one stream request, given to its `done` callback exactly once. */
export type StreamResult =
  | {
      /** The request succeeded. */
      readonly ok: true;
      /** The reply; undefined when none was expected (the request was written). */
      readonly bytes: Uint8Array | undefined;
    }
  | {
      /** The request failed: it timed out, the connection was refused or reset, the transport closed... */
      readonly ok: false;
      /** Why, in one line for logs and `JoinResult.failed`. */
      readonly reason: string;
    };

/** Callbacks a transport delivers incoming traffic to (see {@link Transport.listen}). */
export interface TransportHandlers {
  /** A packet arrived from `from` (the sender's address as the transport knows it). */
  packet(from: string, bytes: Uint8Array): void;
  /** A peer opened a stream and sent `bytes`; call `reply` exactly once (undefined closes without reply). */
  stream(from: string, bytes: Uint8Array, reply: (bytes: Uint8Array | undefined) => void): void;
}
