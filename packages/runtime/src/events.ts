import type { IncomingQuery } from './queries/query-types.js';
import type {
  ConflictEffect,
  DecodeErrorEffect,
  HealthEffect,
  MemberEventEffect,
  ProbeEffect,
  UserMessageEffect,
  UserStateEffect,
} from '@swim/core';

/** A membership change as delivered to listeners and iterators. */
export type MembershipChange = Omit<MemberEventEffect, 'type'>;

/** Every event a member dispatches, by type, with its `detail`. */
export interface MemberEventMap {
  /** Any membership change; `detail.event` says which. */
  change: MembershipChange;
  /**
   * A member seen for the first time (preloaded ones included), or alive again after it was dead
   * or left (memberlist NotifyJoin).
   */
  join: MembershipChange;
  /** A member's metadata or address changed, this member's own `updateMeta` included (memberlist NotifyUpdate). */
  update: MembershipChange;
  /** A member is suspected of having failed; it is still listed until the suspicion times out (SWIM section 4.2). */
  suspect: MembershipChange;
  /** A suspected member is alive again: its refutation (an alive at a higher incarnation) arrived. memberlist has no such event. */
  alive: MembershipChange;
  /** A member was declared dead: by our suspicion timeout or a peer's dead message (`detail.cause`; memberlist NotifyLeave). */
  dead: MembershipChange;
  /** A member left gracefully, this one included after `leave()` (memberlist NotifyLeave). */
  left: MembershipChange;
  /** A probe ended (memberlist probeNode): acked directly, through helpers, over the fallback stream, or not at all; with the RTT of a direct ack. */
  probe: Omit<ProbeEffect, 'type'>;
  /** The local health score changed (Lifeguard awareness; memberlist metric memberlist.health.score). */
  health: Omit<HealthEffect, 'type'>;
  /** A user message arrived: a broadcast (with its `key`) or one sent to this member with `send` (memberlist NotifyMsg). */
  message: Omit<UserMessageEffect, 'type'>;
  /**
   * A query arrived and its filters selected this member (serf EventQuery): respond with
   * `detail.respond()`, or register a handler with `member.handleQuery`. Serf's own `_serf_`
   * queries never come here, nor does any query traffic reach `message`.
   */
  query: IncomingQuery;
  /** A peer's application state arrived in a push-pull (memberlist Delegate.MergeRemoteState); see `setUserState`. */
  'user-state': Omit<UserStateEffect, 'type'>;
  /** A member's name was claimed from another address (memberlist ConflictDelegate.NotifyConflict). */
  conflict: Omit<ConflictEffect, 'type'>;
  /** A packet or stream could not be decoded; it was counted and dropped, nothing changed. */
  'decode-error': Omit<DecodeErrorEffect, 'type'>;
  /**
   * An exception the member caught and survived (counted in `member.errors`): thrown by the core,
   * a listener or the transport inside a timer, packet, stream or stream-result callback.
   */
  error: ContainedError;
}

/** Where a contained exception was thrown. */
export type ErrorSite =
  /** The core's tick, from the member's timer. */
  | 'timer'
  /** The core, handling an incoming packet. */
  | 'packet'
  /** The core, handling an incoming stream (the stream is still answered, without a reply). */
  | 'stream'
  /** The core, handling the result of one of its own stream requests. */
  | 'stream-result'
  /** The core, moving to the address the transport reported (Transport.onAddressChange): an address the wire cannot carry. */
  | 'move'
  /** An event listener (or the promise an async listener returned). */
  | 'listener'
  /** The transport, carrying out one of the core's effects (a send, a request, a reply). */
  | 'effect';

/** The `detail` of an `error` event: an exception the member caught and survived. */
export interface ContainedError {
  /** What was thrown (or what a listener's promise rejected with), as it was. */
  readonly error: unknown;
  /** Where it was thrown. */
  readonly where: ErrorSite;
}

/**
 * A listener as `EventTarget` takes it: a function or an object with `handleEvent`. The DOM's
 * `EventListenerOrEventListenerObject`, spelled out because Node's types (without the DOM lib) do
 * not declare that name, and these declarations must compile in both.
 */
export type Listener =
  | ((event: Event) => void)
  | {
      /** Called with each event dispatched to the listener. */
      handleEvent(event: Event): void;
    };

/**
 * Options of {@link TypedEventTarget.on} and `addEventListener`: the DOM's `AddEventListenerOptions`
 * (`once`, `passive`, `signal` to remove the listener on abort, and `capture`), declared here so a
 * Node project compiles without the DOM lib.
 */
export interface ListenerOptions {
  /** Listen in the capture phase (no effect on a member, which has no tree of targets). */
  capture?: boolean;
  /** Remove the listener after its first call. */
  once?: boolean;
  /** A promise not to call `preventDefault()` (kept for the standard's sake). */
  passive?: boolean;
  /** Remove the listener when this signal aborts. */
  signal?: AbortSignal;
}

/**
 * A standard EventTarget (Node and browsers alike) with typed `on` and `dispatch` helpers;
 * listeners receive `CustomEvent`s whose `detail` is typed by {@link MemberEventMap}.
 *
 * Given `onListenerError`, every listener is wrapped so that what it throws (or the promise it
 * returns rejects with) goes there instead of the host: Node's EventTarget rethrows a listener's
 * exception on the next tick as an uncaught exception, which ends the process.
 */
export class TypedEventTarget<M extends object> extends EventTarget {
  readonly #onListenerError: ((error: unknown, type: string) => void) | undefined;
  /** The wrapper of each listener, by `capture:type`, so that removeEventListener finds it. */
  readonly #wrappers = new WeakMap<Listener, Map<string, (event: Event) => void>>();
  /**
   * Every type a listener was ever added for. An event no one can hear is not built: Node's
   * CustomEvent and dispatchEvent cost microseconds each, and a member reports every probe and
   * every membership change (a preload of n members alone would build 2n events). A type stays
   * here once listened to (a `once` or aborted listener leaves without removeEventListener).
   */
  readonly #listened = new Set<string>();

  constructor(onListenerError?: (error: unknown, type: string) => void) {
    super();
    this.#onListenerError = onListenerError;
  }

  /** Listen to `type`; returns a function that removes the listener. */
  on<K extends keyof M & string>(type: K, listener: (detail: M[K]) => void, options?: ListenerOptions): () => void {
    const wrapped = (event: Event) => listener((event as CustomEvent<M[K]>).detail);
    this.addEventListener(type, wrapped, options);
    return () => this.removeEventListener(type, wrapped, options);
  }

  override addEventListener(type: string, listener: Listener | null, options?: ListenerOptions | boolean): void {
    const report = this.#onListenerError;
    if (listener !== null) this.#listened.add(type);
    if (listener === null || report === undefined) return super.addEventListener(type, listener, options);
    let byKey = this.#wrappers.get(listener);
    if (byKey === undefined) this.#wrappers.set(listener, (byKey = new Map()));
    const key = wrapperKey(type, options);
    let wrapper = byKey.get(key);
    if (wrapper === undefined) {
      wrapper = function (this: unknown, event: Event): void {
        try {
          const result: unknown = typeof listener === 'function' ? listener.call(this, event) : listener.handleEvent(event);
          if (isThenable(result)) result.then(undefined, (error: unknown) => report(error, type));
        } catch (error) {
          report(error, type);
        }
      };
      byKey.set(key, wrapper);
    }
    super.addEventListener(type, wrapper, options);
  }

  override removeEventListener(type: string, listener: Listener | null, options?: Pick<ListenerOptions, 'capture'> | boolean): void {
    const wrapper = listener === null ? undefined : this.#wrappers.get(listener)?.get(wrapperKey(type, options));
    super.removeEventListener(type, wrapper ?? listener, options);
  }

  /** Whether a listener was ever added for `type`: a caller can skip building a detail nobody hears. */
  protected isListened(type: keyof M & string): boolean {
    return this.#listened.has(type);
  }

  protected dispatch<K extends keyof M & string>(type: K, detail: M[K]): void {
    if (this.#listened.has(type)) this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** EventTarget tells listeners apart by type, callback and capture flag. */
function wrapperKey(type: string, options: Pick<ListenerOptions, 'capture'> | boolean | undefined): string {
  const capture = typeof options === 'boolean' ? options : options?.capture === true;
  return `${capture ? 1 : 0}:${type}`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
