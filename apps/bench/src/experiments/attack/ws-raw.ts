/**
 * A WebSocket client written by hand on a TCP socket (RFC 6455: the upgrade request, masked frames
 * out, unmasked frames in), so that the attacker controls what a library would not: it can stop
 * reading altogether, and it connects from the attacker's own loopback address. It speaks the
 * gateway's framing (transport-ws src/protocol/framing.ts): a JSON hello, then binary frames.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { ATTACKER_HOST } from './forge.js';

const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
/** Gateway framing: a packet from the client, `[0x01][u8 address length][address][bytes]`. */
const GATEWAY_OP_PACKET = 0x01;

export interface Welcome {
  readonly address: string;
  readonly seed?: string;
  readonly resume: string;
}

export class RawWsClient {
  /** Binary frames received after the welcome. */
  readonly frames: Buffer[] = [];
  /** Bytes of every frame received, the handshake excluded. */
  bytesReceived = 0;
  close: { code: number; reason: string } | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
  #buffer: Buffer = Buffer.alloc(0);
  #texts: Array<(text: string) => void> = [];
  #resolveClosed!: (value: { code: number; reason: string }) => void;

  private constructor(readonly socket: Socket) {
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () => this.#ended({ code: 1006, reason: 'connection closed' }));
  }

  /** Open the TCP connection and complete the upgrade. Rejects when the server refuses it. */
  static connect(url: string, localAddress = ATTACKER_HOST, timeoutMs = 10_000): Promise<RawWsClient> {
    const { hostname, port, pathname } = new URL(url);
    const key = randomBytes(16).toString('base64');
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port), localAddress, noDelay: true });
      const timer = setTimeout(() => fail(new Error(`no upgrade within ${timeoutMs} ms`)), timeoutMs);
      let head = Buffer.alloc(0);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        clearTimeout(timer);
        const response = head.subarray(0, end).toString('latin1');
        if (!/^HTTP\/1\.1 101/.test(response) || !response.includes(accept)) return fail(new Error(`upgrade refused: ${response.split('\r\n')[0]}`));
        const client = new RawWsClient(socket);
        const rest = head.subarray(end + 4);
        if (rest.length > 0) client.#onData(rest);
        resolve(client);
      };
      socket.on('data', onData);
      socket.once('error', fail);
      socket.once('close', () => fail(new Error('closed during the upgrade')));
      socket.on('connect', () => {
        socket.write(
          [`GET ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Key: ${key}`, 'Sec-WebSocket-Version: 13', '', ''].join('\r\n'),
        );
      });
    });
  }

  /** Say hello; resolves with the welcome, or with the close the gateway answered instead. */
  async hello(fields: Record<string, unknown>, timeoutMs = 10_000): Promise<Welcome | { code: number; reason: string }> {
    const text = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.#texts.push((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
    this.send(OP_TEXT, Buffer.from(JSON.stringify({ op: 'hello', v: 1, ...fields })));
    const reply = await Promise.race([text, this.closed]);
    if (reply === undefined) return { code: 0, reason: `no welcome within ${timeoutMs} ms` };
    if (typeof reply !== 'string') return reply;
    return JSON.parse(reply) as Welcome;
  }

  /** A PACKET frame: the gateway sends `bytes` from this client's relay to `to`. */
  sendPacket(to: string, bytes: Uint8Array): void {
    const address = Buffer.from(to);
    this.send(OP_BINARY, Buffer.concat([Buffer.from([GATEWAY_OP_PACKET, address.length]), address, bytes]));
  }

  send(opcode: number, payload: Buffer): void {
    if (this.socket.destroyed) return;
    const mask = randomBytes(4);
    const n = payload.length;
    const head = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n]) : n < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
    if (n >= 126 && n < 65_536) {
      head[0] = 0x80 | opcode;
      head[1] = 0x80 | 126;
      head.writeUInt16BE(n, 2);
    } else if (n >= 65_536) {
      head[0] = 0x80 | opcode;
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(BigInt(n), 2);
    }
    const masked = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) masked[i] = payload[i]! ^ mask[i & 3]!;
    this.socket.write(Buffer.concat([head, mask, masked]));
  }

  /** Stop reading: what the gateway sends piles up in its buffers (the kernel's fill first). */
  stopReading(): void {
    this.socket.pause();
  }

  /** A normal close (1000): the gateway releases the relay at once instead of holding it for a reconnect. */
  goodbye(): void {
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1000, 0);
    this.send(OP_CLOSE, code);
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  #ended(value: { code: number; reason: string }): void {
    if (this.close !== undefined) return;
    this.close = value;
    this.#resolveClosed(value);
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const b = this.#buffer;
      if (b.length < 2) return;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return;
      const opcode = b[0]! & 0x0f;
      const payload = b.subarray(offset, offset + length);
      this.#buffer = b.subarray(offset + length);
      this.bytesReceived += offset + length;
      if (opcode === OP_TEXT) this.#texts.shift()?.(payload.toString('utf8'));
      else if (opcode === OP_BINARY) this.frames.push(Buffer.from(payload));
      else if (opcode === OP_PING) this.send(0xa, Buffer.from(payload));
      else if (opcode === OP_CLOSE) {
        this.#ended({ code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005, reason: payload.subarray(2).toString('utf8') });
        this.socket.end();
      }
    }
  }
}
