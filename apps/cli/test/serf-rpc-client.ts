/**
 * A raw Serf RPC client for the tests: writes msgpack values as given (RPC dialect: strings as
 * str, bytes as bin) and reads the server's values one by one, as the Go client's decoder does.
 */
import { encode } from '@msgpack/msgpack';
import { connect, type Socket } from 'node:net';
import { RequestReader } from '../src/serf-rpc/request-reader.js';

export interface RawClient {
  readonly socket: Socket;
  /** Write one or more values (or raw bytes). */
  write(...values: unknown[]): void;
  writeRaw(bytes: Uint8Array): void;
  /** The next value the server wrote; rejects when the connection closes first or after `timeoutMs`. */
  next(timeoutMs?: number): Promise<unknown>;
  /** A request (header + body unless body is undefined), then the response header. */
  call(command: string, seq: number, body?: unknown): Promise<{ Error: string; Seq: number }>;
  /** Resolves when the server closed the connection. */
  readonly closed: Promise<void>;
  readonly isClosed: () => boolean;
}

export async function rawClient(address: { host: string; port: number }): Promise<RawClient> {
  const socket = connect(address.port, address.host);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const values: unknown[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const reader = new RequestReader({ maxBytes: 64 * 1024 * 1024, maxDepth: 16, maxQueued: 1_000_000 }, { onValue: () => wake?.(), onRefused: () => socket.destroy(), onPartial: () => {} });
  socket.on('data', (chunk: Buffer) => {
    reader.push(chunk);
    for (let v = reader.shift(); v !== undefined; v = reader.shift()) values.push(v.value);
    wake?.();
  });
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      wake?.();
      resolve();
    }),
  );
  socket.on('error', () => {});
  const next = (timeoutMs = 5000): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no value within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        if (values.length > 0) {
          clearTimeout(timer);
          wake = undefined;
          resolve(values.shift());
        } else if (closed) {
          clearTimeout(timer);
          wake = undefined;
          reject(new Error('connection closed'));
        }
      };
      wake = check;
      check();
    });
  const write = (...items: unknown[]) => {
    for (const item of items) socket.write(encode(item));
  };
  return {
    socket,
    write,
    writeRaw: (bytes) => void socket.write(bytes),
    next,
    async call(command, seq, body) {
      write({ Command: command, Seq: seq }, ...(body === undefined ? [] : [body]));
      return (await next()) as { Error: string; Seq: number };
    },
    closed: closedPromise,
    isClosed: () => closed,
  };
}
