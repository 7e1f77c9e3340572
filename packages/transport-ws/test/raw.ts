import { WebSocket } from 'ws';
import { parseWelcome, type Welcome } from '../src/protocol/framing.js';

/** A raw `ws` connection speaking the framing by hand, for tests that misbehave on purpose. */
export interface RawClient {
  readonly ws: WebSocket;
  /** Binary frames received after the welcome. */
  readonly frames: Uint8Array[];
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** Open a WebSocket without saying hello; rejects when the upgrade is refused (e.g. "Unexpected server response: 429"). */
export async function rawConnect(url: string, headers: Record<string, string> = {}): Promise<RawClient> {
  const ws = new WebSocket(url, { headers });
  ws.on('error', () => {});
  const frames: Uint8Array[] = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) frames.push(new Uint8Array(data as Buffer));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, frames, closed };
}

/** Connect and say hello; resolves with the welcome (rejects when the gateway closes instead). */
export async function rawJoin(url: string, hello: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RawClient & { welcome: Welcome }> {
  const client = await rawConnect(url, headers);
  const welcome = await new Promise<Welcome>((resolve, reject) => {
    client.ws.once('message', (data, isBinary) => {
      const parsed = isBinary ? 'binary' : parseWelcome((data as Buffer).toString());
      if (typeof parsed === 'string') reject(new Error(parsed));
      else resolve(parsed);
    });
    void client.closed.then(({ code, reason }) => reject(new Error(`closed ${code} ${reason}`)));
    client.ws.send(JSON.stringify({ op: 'hello', v: 1, ...hello }));
  });
  return { ...client, welcome };
}

/** Stop reading the client's socket: the gateway's writes to it pile up in the kernel, then in the gateway. */
export function stopReading(client: RawClient): void {
  (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
}
