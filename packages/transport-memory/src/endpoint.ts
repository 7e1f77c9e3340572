import type { StreamResult, Timer, TransportHandlers } from '@swim/runtime';

/** A stream request in flight: `done` is called once, when `settled` turns true (or never, if crashed). */
export class StreamCall {
  settled = false;
  /** The request's timeout; cancelled when the call settles, so nothing stays armed after it. */
  timeout: Timer | undefined;

  constructor(
    readonly requester: Endpoint,
    readonly to: string,
    readonly expectReply: boolean,
    readonly done: (result: StreamResult) => void,
  ) {}
}

/** Something that reached a paused endpoint and waits for it to resume, in arrival order. */
export type Held =
  | { readonly kind: 'packet'; readonly from: string; readonly bytes: Uint8Array }
  | { readonly kind: 'outcome'; readonly call: StreamCall; readonly result: StreamResult };

/**
 * One transport's state inside the network: the process behind an address. `crashed` is
 * permanent; `paused` holds everything addressed to it (SIGSTOP: the kernel still queues what
 * arrives, the process reads it on resume).
 */
export class Endpoint {
  handlers: TransportHandlers | undefined;
  closed = false;
  crashed = false;
  paused = false;
  readonly held: Held[] = [];
  /** Requests this endpoint opened that have not ended. */
  readonly requests = new Set<StreamCall>();
  /** Requests handed to this endpoint's stream handler that it has not answered yet. */
  readonly serving = new Set<StreamCall>();

  constructor(readonly address: string) {}
}
