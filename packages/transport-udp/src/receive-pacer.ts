/**
 * Receive pacing: how long received datagrams may keep the event loop busy before the timers get
 * their turn.
 *
 * libuv reads up to 32 datagrams per readiness event of a socket and Node emits them one after
 * another, all in the loop's poll phase. A burst of large datagrams (100 forged 36 KB packets of
 * 1,000 alives each: ~2 ms of decoding apiece) then kept one process busy for 60-130 ms at a
 * stretch, while its probe and suspicion timers waited. So datagrams are handed to the member for
 * at most {@link RECEIVE_SLICE_MS} per loop turn; the ones arriving after that wait in a queue,
 * in order, and the next turns (setImmediate, after the timers) hand them on, a slice per turn.
 * memberlist does the same work on its own goroutine, so a flood there delays gossip but not the
 * probe ticker (`packetListen` feeding `handoffCh`, bounded by HandoffQueueDepth).
 *
 * One pacer for the process: the event loop is one, however many transports share it.
 */

/** Longest that received datagrams are handed on in one event-loop turn, in ms. */
export const RECEIVE_SLICE_MS = 10;

/** Where a deferred datagram goes: the transport that received it. */
export interface ReceiveSink {
  deliverDeferred(from: string, bytes: Uint8Array): void;
}

interface Deferred {
  readonly sink: ReceiveSink;
  readonly from: string;
  readonly bytes: Uint8Array;
}

export class ReceivePacer {
  readonly #sliceMs: number;
  readonly #now: () => number;
  /** When the current turn's slice began; -1 while no datagram has been handed on this turn. */
  #sliceStart = -1;
  /** The setImmediate that ends this turn's slice (and hands on what waits), if any. */
  #turn: NodeJS.Immediate | undefined;
  /** Deferred datagrams, a ring buffer: #queued of them from #head. */
  #queue: Array<Deferred | undefined> = [];
  #head = 0;
  #queued = 0;

  constructor(sliceMs: number = RECEIVE_SLICE_MS, now: () => number = () => performance.now()) {
    this.#sliceMs = sliceMs;
    this.#now = now;
  }

  /** Datagrams waiting for a later turn, across every transport of the process. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * True when a datagram received now may be handed on at once: nothing waits before it, and this
   * turn's slice is not spent. Otherwise the caller defers it (or drops it, past its own bound).
   */
  mayDeliverNow(): boolean {
    if (this.#queued > 0) return false;
    if (this.#sliceStart < 0) {
      this.#sliceStart = this.#now();
      this.#turn ??= setImmediate(this.#onTurn);
      return true;
    }
    return this.#now() - this.#sliceStart < this.#sliceMs;
  }

  /** Queue a datagram for a later turn; `sink.deliverDeferred` gets it, after everything queued before it. */
  defer(sink: ReceiveSink, from: string, bytes: Uint8Array): void {
    if (this.#queued === this.#queue.length) this.#grow();
    this.#queue[(this.#head + this.#queued) % this.#queue.length] = { sink, from, bytes };
    this.#queued++;
    this.#turn ??= setImmediate(this.#onTurn);
  }

  /** A new turn (the timers have run): a fresh slice for what waits; a datagram at least, so the queue always moves. */
  readonly #onTurn = (): void => {
    this.#turn = undefined;
    if (this.#queued === 0) {
      this.#sliceStart = -1;
      return;
    }
    const start = this.#now();
    this.#sliceStart = start;
    do {
      const next = this.#queue[this.#head]!;
      this.#queue[this.#head] = undefined;
      this.#head = (this.#head + 1) % this.#queue.length;
      this.#queued--;
      next.sink.deliverDeferred(next.from, next.bytes);
    } while (this.#queued > 0 && this.#now() - start < this.#sliceMs);
    if (this.#queued > 0) {
      // The rest waits for the next turn; whatever arrives meanwhile queues behind it.
      this.#turn = setImmediate(this.#onTurn);
    } else {
      // The timers run before the next poll phase: datagrams read there start a fresh slice.
      this.#sliceStart = -1;
    }
  };

  #grow(): void {
    const capacity = this.#queue.length;
    const grown: Array<Deferred | undefined> = new Array(Math.max(16, capacity * 2));
    for (let i = 0; i < this.#queued; i++) grown[i] = this.#queue[(this.#head + i) % capacity];
    this.#queue = grown;
    this.#head = 0;
  }
}

/** The process's pacer, shared by every UdpTransport. */
export const processReceivePacer = new ReceivePacer();
