import { WebSocket, type RawData } from 'ws';
import type { Allocate } from '../protocol/framing.js';
import type { ByteBudget } from './byte-budget.js';
import type { Containment } from './containment.js';
import type { TokenBucket } from './rate-limit.js';
import type { Session } from './session.js';
import type { Corkable, WriteBatch } from './write-batch.js';

/** Frames the gateway sends are cut from Node's buffer pool (see {@link Allocate}). */
export const allocateFrame: Allocate = (size) => Buffer.allocUnsafe(size);

/** How long a relay stream waits for the client's reply before it ends without one. */
const RELAY_STREAM_WAIT_MS = 10_000;

/** Where a connection is in its life: 'hello' until a hello arrived, 'opening' while its relay opens, then 'ready'. */
export type ConnectionPhase = 'hello' | 'opening' | 'ready' | 'closed';

type Reply = (bytes: Uint8Array | undefined) => void;

/** What {@link Connection.sendWithin} did: sent, not sent because the client is over its byte budget, or not open. */
export type SendOutcome = 'sent' | 'over' | 'closed';

/** One browser's WebSocket, and what the gateway tracks about it until it closes. */
export class Connection {
  phase: ConnectionPhase = 'hello';
  /** The member this connection speaks for, once welcomed. */
  session: Session | undefined = undefined;
  readonly #helloTimer: ReturnType<typeof setTimeout>;
  /** Relay streams handed to the client, by the id their reply will carry. */
  readonly #streams = new Map<number, { reply: Reply; timer: ReturnType<typeof setTimeout> }>();
  #nextStreamId = 1;
  /** This connection's bytes in the budget: frames queued for its socket, and its requests in flight. */
  #held = 0;
  /** Set once the connection closed and gave its bytes back: late write callbacks change nothing. */
  #budgetReturned = false;

  constructor(
    readonly ws: WebSocket,
    /** `undefined` when the rate limit is off. */
    readonly bucket: TokenBucket | undefined,
    /** The client address this connection counts against (see admission.ts). */
    readonly addressKey: string,
    private readonly budget: ByteBudget,
    private readonly containment: Containment,
    helloTimeoutMs: number,
    onHelloTimeout: (conn: Connection) => void,
    /** The connection's TCP (or TLS) socket, corked by `batch` so that a turn's frames leave in one write. */
    private readonly socket: Corkable,
    private readonly batch: WriteBatch,
  ) {
    this.#helloTimer = setTimeout(
      containment.wrap('hello timer', () => {
        if (this.phase === 'hello') onHelloTimeout(this);
      }),
      helloTimeoutMs,
    );
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Bytes `ws` has queued for the client and not yet written to the socket: how far behind it is. */
  get bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  /** Relay streams waiting for the client's reply. */
  get waitingStreams(): number {
    return this.#streams.size;
  }

  stopHelloTimer(): void {
    clearTimeout(this.#helloTimer);
  }

  /** Send a handshake text frame (one small frame per connection, outside the byte budget); false when not sent. */
  send(text: string): boolean {
    if (!this.isOpen) return false;
    try {
      this.ws.send(text);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Send a binary frame if it fits the byte budget. Its bytes count until `ws` has written them to
   * the socket, so a client that does not read stops getting frames once the kernel's buffers and
   * then the budget are full, instead of the gateway queueing them without end.
   */
  sendWithin(frame: Uint8Array): SendOutcome {
    if (!this.isOpen || this.#budgetReturned) return 'closed';
    const size = frame.byteLength;
    if (!this.budget.fits(this.#held, size)) return 'over';
    this.#hold(size);
    this.batch.hold(this.socket);
    try {
      this.ws.send(frame, this.containment.wrap('send callback', () => this.release(size)));
      return 'sent';
    } catch {
      this.release(size);
      return 'closed';
    }
  }

  /** Count a request's bytes while it is in flight; false (nothing held) when they do not fit the budget. */
  holdRequest(size: number): boolean {
    if (this.#budgetReturned || !this.budget.fits(this.#held, size)) return false;
    this.#hold(size);
    return true;
  }

  /** Give back bytes held by {@link sendWithin} or {@link holdRequest}. */
  release(size: number): void {
    if (this.#budgetReturned) return;
    this.#held -= size;
    this.budget.give(size);
  }

  /** The connection closed: give back everything it held (its queued frames are gone with it). */
  returnBudget(): void {
    if (this.#budgetReturned) return;
    this.#budgetReturned = true;
    this.budget.give(this.#held);
    this.#held = 0;
  }

  #hold(size: number): void {
    this.#held += size;
    this.budget.take(size);
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
    const timer = setTimeout(
      this.containment.wrap('relay stream timer', () => {
        this.#streams.delete(id);
        reply(undefined);
      }),
      RELAY_STREAM_WAIT_MS,
    );
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
      this.containment.run('relay stream reply', () => reply(undefined), undefined);
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
