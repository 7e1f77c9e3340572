import { WebSocket, type RawData } from 'ws';
import type { TokenBucket } from './rate-limit.js';
import type { Session } from './session.js';

/** How long a relay stream waits for the client's reply before it ends without one. */
const RELAY_STREAM_WAIT_MS = 10_000;

/** Where a connection is in its life: 'hello' until a hello arrived, 'opening' while its relay opens, then 'ready'. */
export type ConnectionPhase = 'hello' | 'opening' | 'ready' | 'closed';

type Reply = (bytes: Uint8Array | undefined) => void;

/** One browser's WebSocket, and what the gateway tracks about it until it closes. */
export class Connection {
  phase: ConnectionPhase = 'hello';
  /** The member this connection speaks for, once welcomed. */
  session: Session | undefined = undefined;
  readonly #helloTimer: ReturnType<typeof setTimeout>;
  /** Relay streams handed to the client, by the id their reply will carry. */
  readonly #streams = new Map<number, { reply: Reply; timer: ReturnType<typeof setTimeout> }>();
  #nextStreamId = 1;

  constructor(
    readonly ws: WebSocket,
    /** `undefined` when the rate limit is off. */
    readonly bucket: TokenBucket | undefined,
    helloTimeoutMs: number,
    onHelloTimeout: (conn: Connection) => void,
  ) {
    this.#helloTimer = setTimeout(() => {
      if (this.phase === 'hello') onHelloTimeout(this);
    }, helloTimeoutMs);
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Bytes queued for the client and not yet sent: how far behind it is. */
  get bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  stopHelloTimer(): void {
    clearTimeout(this.#helloTimer);
  }

  /** Send to the client; false when the connection is not open or the send failed. */
  send(data: Uint8Array | string): boolean {
    if (!this.isOpen) return false;
    try {
      this.ws.send(data);
      return true;
    } catch {
      return false;
    }
  }

  /** Close with `code`, or terminate when `ws` refuses to (already closing, or a code it rejects). */
  close(code: number, reason: string): void {
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }

  /** Resolves on the `ws` close event. */
  whenClosed(): Promise<void> {
    return new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
  }

  /** Register a relay stream forwarded to the client: its id, which the client's reply carries back. */
  awaitReply(reply: Reply): number {
    const id = this.#nextStreamId;
    this.#nextStreamId = this.#nextStreamId >= 0xffff_ffff ? 1 : this.#nextStreamId + 1;
    const timer = setTimeout(() => {
      this.#streams.delete(id);
      reply(undefined);
    }, RELAY_STREAM_WAIT_MS);
    this.#streams.set(id, { reply, timer });
    return id;
  }

  /** The reply function for stream `id`, taken out of the waiting set; undefined if it is late (the stream is gone). */
  takeReply(id: number): Reply | undefined {
    const pending = this.#streams.get(id);
    if (pending === undefined) return undefined;
    this.#streams.delete(id);
    clearTimeout(pending.timer);
    return pending.reply;
  }

  /**
   * Unbind this connection from its session; its waiting relay streams end without a reply.
   * Returns the session when it was still bound to this connection (not already taken by a resume).
   */
  detach(): Session | undefined {
    for (const { reply, timer } of this.#streams.values()) {
      clearTimeout(timer);
      reply(undefined);
    }
    this.#streams.clear();
    const session = this.session;
    this.session = undefined;
    if (session !== undefined && session.conn === this) {
      session.conn = undefined;
      return session;
    }
    return undefined;
  }
}

export function rawBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

export function rawText(data: RawData): string {
  return Buffer.from(rawBytes(data)).toString('utf8');
}
