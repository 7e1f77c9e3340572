/**
 * The part of the standard WebSocket API the client uses, so that the browser's `WebSocket` and
 * the `ws` package's (Node) both fit without DOM or Node types leaking into the public API.
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { readonly code: number; readonly reason: string }) => void): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** readyState of an open socket (WebSocket.OPEN). */
export const OPEN = 1;
