/**
 * The part of the standard WebSocket API the client uses, so that the browser's `WebSocket` and
 * the `ws` package's (Node) both fit without DOM or Node types leaking into the public API.
 */
export interface WebSocketLike {
  /** The client sets it to `'arraybuffer'`, so binary frames arrive as ArrayBuffers. */
  binaryType: string;
  /** 0 connecting, 1 open (replies are sent only then), 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes queued by `send` and not yet sent (part of the standard API; the client does not read it). */
  readonly bufferedAmount: number;
  /** Queue one frame: text for the hello, binary for everything after it. */
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  /** Start the closing handshake (the client sends 1000 on `close()`). */
  close(code?: number, reason?: string): void;
  /** The connection opened: the client sends its hello. */
  addEventListener(type: 'open', listener: () => void): void;
  /** A frame arrived: the welcome as text, then binary frames. */
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  /** The connection closed, with the close code and reason. */
  addEventListener(type: 'close', listener: (event: { readonly code: number; readonly reason: string }) => void): void;
  /** An error; a `close` event follows, and the client acts on that one. */
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
}

/** A WebSocket class: the client calls `new WebSocket(url)` for each connection attempt. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** readyState of an open socket (WebSocket.OPEN). */
export const OPEN = 1;
