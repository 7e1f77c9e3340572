/**
 * Receive pacing: how long received datagrams may keep the event loop busy before the timers get
 * their turn.
 *
 * libuv reads up to 32 datagrams per readiness event of a socket and Node emits them one after
 * another, all in the loop's poll phase. A burst of large datagrams (100 forged 36 KB packets of
 * 1,000 alives each: ~2 ms of decoding apiece) then kept one process busy for 60-130 ms at a
 * stretch, while its probe and suspicion timers waited. So datagrams handed to the member back to
 * back form a slice of at most {@link RECEIVE_SLICE_MS}; the ones arriving after that wait in a
 * queue, in order, and the next turns (setImmediate, after the timers) hand them on, a slice per
 * turn. memberlist does this work on its own goroutine, so a flood there delays gossip but not
 * the probe ticker (`packetListen` feeding `handoffCh`, bounded by HandoffQueueDepth).
 *
 * A slice is a run of deliveries each starting within {@link RECEIVE_GAP_MS} of the previous one's
 * end: datagrams of one read burst follow each other within microseconds, and a longer gap means
 * the loop was free for other work. Marking turns with a setImmediate per turn instead cost about
 * 9 % more CPU at 2,000 members in one process (udp-scale, two runs each side), whose datagrams
 * mostly arrive one per turn.
 *
 * A datagram waits at most {@link RECEIVE_MAX_WAIT_MS}: once the oldest waiting one is older, a
 * turn keeps handing on past its slice until the oldest is younger again. Under sustained overload
 * (more arriving than the core gets through) a slice per turn let the timers keep their pace, and
 * keep sending at it, while what was received queued up without end: 1,000 members growing by
 * joins in one process had acks wait past the probe timeout and fell into a suspicion storm
 * (800,935 suspect events in 300 s), where without pacing they converged in 40 s with none. An
 * unpaced loop that falls behind delays its timers, and so what they send; the wait bound gives
 * that back. Not for one sender's backlog, though ({@link RECEIVE_DRAIN_MAX_SOURCE_SHARE}): a
 * flood from one address stays paced however long it waits, or it would hold the timers again.
 *
 * One pacer for the process: the event loop is one, however many transports share it.
 */

import { RingQueue } from './ring-queue.js';

/** Longest run of received datagrams handed on back to back, in ms. */
export const RECEIVE_SLICE_MS = 10;
/** A delivery starting this long after the previous one ended begins a new slice, in ms. */
export const RECEIVE_GAP_MS = 1;
/** Longest a deferred datagram waits before a turn hands it on past its slice, in ms. */
export const RECEIVE_MAX_WAIT_MS = 50;
/**
 * A datagram waiting too long is handed on past the slice only while its sender holds at most this
 * share of the bytes waiting: one sender's backlog is a flood to pace, not the members' own work.
 */
export const RECEIVE_DRAIN_MAX_SOURCE_SHARE = 0.25;

/** Where a deferred datagram goes: the transport that received it hands it to its member. */
export type DeferredDelivery = (from: string, bytes: Uint8Array) => void;

interface Deferred {
  readonly deliver: DeferredDelivery;
  readonly from: string;
  readonly bytes: Uint8Array;
  /** When it was deferred. */
  readonly at: number;
}

export class ReceivePacer {
  readonly #sliceMs: number;
  readonly #now: () => number;
  /** When the current slice began (set by the first delivery after a gap). */
  #sliceStart = 0;
  /** When the last delivery of the slice ended. */
  #lastEnd = Number.NEGATIVE_INFINITY;
  /** The setImmediate that hands on what waits, if any. */
  #turn: NodeJS.Immediate | undefined;
  readonly #queue = new RingQueue<Deferred>();
  /** Bytes waiting, in all and per sender. */
  #queuedBytes = 0;
  readonly #bytesBySource = new Map<string, number>();

  constructor(sliceMs: number = RECEIVE_SLICE_MS, now: () => number = () => performance.now()) {
    this.#sliceMs = sliceMs;
    this.#now = now;
  }

  /** Datagrams waiting for a later turn, across every transport of the process. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * True when a datagram received now may be handed on at once: nothing waits before it, and its
   * slice is not spent. Otherwise the caller defers it (or drops it, past its own bound). After
   * handing it on, the caller reports {@link delivered}.
   */
  mayDeliverNow(): boolean {
    if (this.#queue.length > 0) return false;
    const now = this.#now();
    if (now - this.#lastEnd > RECEIVE_GAP_MS) this.#sliceStart = now;
    return now - this.#sliceStart < this.#sliceMs;
  }

  /** A datagram allowed by {@link mayDeliverNow} was handed on. */
  delivered(): void {
    this.#lastEnd = this.#now();
  }

  /** Queue a datagram for a later turn; `deliver` gets it, after everything queued before it. */
  defer(deliver: DeferredDelivery, from: string, bytes: Uint8Array): void {
    this.#queue.push({ deliver, from, bytes, at: this.#now() });
    this.#queuedBytes += bytes.length;
    this.#bytesBySource.set(from, (this.#bytesBySource.get(from) ?? 0) + bytes.length);
    this.#turn ??= setImmediate(this.#onTurn);
  }

  #shift(): Deferred {
    const next = this.#queue.shift();
    this.#queuedBytes -= next.bytes.length;
    const left = this.#bytesBySource.get(next.from)! - next.bytes.length;
    if (left === 0) this.#bytesBySource.delete(next.from);
    else this.#bytesBySource.set(next.from, left);
    return next;
  }

  /** The oldest waiting has waited past the bound, and its sender does not hold most of what waits. */
  #headOverdue(now: number): boolean {
    if (this.#queue.length === 0) return false;
    const head = this.#queue.peek();
    return now - head.at >= RECEIVE_MAX_WAIT_MS && this.#bytesBySource.get(head.from)! <= RECEIVE_DRAIN_MAX_SOURCE_SHARE * this.#queuedBytes;
  }

  /**
   * A new turn (the timers have run): a slice of what waits, a datagram at least, so the queue
   * always moves; and on past the slice while the oldest waiting has waited too long and is not
   * part of one sender's flood.
   */
  readonly #onTurn = (): void => {
    this.#turn = undefined;
    const start = this.#now();
    const queue = this.#queue;
    while (queue.length > 0) {
      const next = this.#shift();
      next.deliver(next.from, next.bytes);
      const now = this.#now();
      if (now - start >= this.#sliceMs && !this.#headOverdue(now)) break;
    }
    if (queue.length > 0) {
      // The rest waits for the next turn; whatever arrives meanwhile queues behind it.
      this.#turn = setImmediate(this.#onTurn);
    } else {
      // The timers run before the next poll phase: datagrams read there begin a new slice.
      this.#lastEnd = Number.NEGATIVE_INFINITY;
    }
  };
}

/** The process's pacer, shared by every UdpTransport. */
export const processReceivePacer = new ReceivePacer();
