/**
 * Wire framing between a WebSocket client and the gateway (browser-safe: TextEncoder, TextDecoder).
 *
 * Text frames (JSON), only during the handshake:
 *   client → gateway  {"op":"hello","v":1,"name":string,"token"?:string,"resume"?:string,"credential"?:string,"from"?:string}
 *   gateway → client  {"op":"welcome","v":1,"address":string,"seed"?:string,"maxPacketBytes":number,"resume":string,"resumed":boolean,
 *                      "credential"?:string,"moved"?:boolean}
 * `credential` (welcome) is the gateway's signature of the member's name, shown in a later hello to
 * another gateway of the cluster together with `from` (the relay address it had) to move there
 * and keep the member; `moved` says that gateway accepted the move (README "Several gateways and
 * failover"). All four are optional on the wire, so clients and gateways from before them still
 * talk to each other: an old gateway sends no credential (its members cannot move), an old client
 * sends no `from` (it joins afresh, as before).
 * After the welcome every frame is binary: one op byte, then fields. `addr` is a u8 length then
 * that many UTF-8 bytes; integers are big-endian; `bytes` runs to the end of the frame.
 *   0x01 PACKET   both ways  [op][addr][bytes]                       addr: destination (c→g) or sender (g→c)
 *   0x02 REQUEST  c → g      [op][id u32][timeoutMs u32][flags u8][addr][bytes]   flags bit 0: expectReply
 *   0x03 RESULT   g → c      [op][id u32][status u8][rest]           status 0 ok, no bytes; 1 ok, rest = reply; 2 failed, rest = UTF-8 reason
 *   0x04 STREAM   g → c      [op][id u32][addr][bytes]               an incoming stream at the relay; addr: requester
 *   0x05 REPLY    c → g      [op][id u32][has u8][bytes]             has 0: close without reply
 * Anything else (unknown op, truncated fields, a text frame after the handshake) is malformed: the
 * gateway closes the connection with 1008 (policy) or 1003 (unsupported data) and a reason.
 */

export const PROTOCOL_VERSION = 1;

export const OP_PACKET = 0x01;
export const OP_REQUEST = 0x02;
export const OP_RESULT = 0x03;
export const OP_STREAM = 0x04;
export const OP_REPLY = 0x05;

/** Close codes the gateway (and the client) use; 4000-4999 are application codes. */
export const WS_CLOSE = Object.freeze({
  /** The client closed on purpose: the gateway releases its relay at once. */
  normal: 1000,
  /** The gateway is shutting down. */
  goingAway: 1001,
  /** A text frame after the handshake, or a binary one before it. */
  unsupportedData: 1003,
  /** A frame that is not this framing: bad JSON, unknown op, truncated fields. */
  policy: 1008,
  /** Larger than maxMessageBytes (sent by the `ws` server itself). */
  tooBig: 1009,
  /** Missing or wrong join token. */
  unauthorized: 4001,
  /** The name is held by a live connection, or held for a reconnect with a different secret. */
  nameTaken: 4002,
  /** A resume secret for a relay that no longer exists (the grace expired). */
  resumeRejected: 4003,
  /** Sustained traffic above the rate limit. */
  rateLimited: 4004,
  /** No hello in time. */
  helloTimeout: 4005,
  /** The same member reconnected (with its resume secret) and took this connection's place. */
  replaced: 4006,
  /** The gateway could not open a relay socket. */
  relayFailed: 4007,
  /** The client's address, or the gateway, holds its maximum of relays (maxSessionsPerIp / maxSessions): try later. */
  tooManySessions: 4008,
  /** The member did not join the cluster within the gateway's joinTimeoutMs: its relay is gone. */
  joinTimeout: 4009,
  /**
   * A hello with `from` (a move from another gateway) whose credential is missing or does not
   * verify for the name: the member is not moved here, and is not admitted as a new one either.
   */
  moveRefused: 4010,
});

/** Close codes after which a client must not reconnect. */
export const FATAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  WS_CLOSE.unauthorized,
  WS_CLOSE.nameTaken,
  WS_CLOSE.resumeRejected,
  WS_CLOSE.replaced,
  WS_CLOSE.joinTimeout,
  WS_CLOSE.policy,
  WS_CLOSE.unsupportedData,
  WS_CLOSE.tooBig,
]);

export interface Hello {
  readonly op: 'hello';
  readonly v: number;
  readonly name: string;
  readonly token?: string;
  readonly resume?: string;
  /** The member credential a gateway of this cluster gave in its welcome: proves the name, for a move. */
  readonly credential?: string;
  /** The relay address the member had at its previous gateway: a move (needs `credential`). */
  readonly from?: string;
}

export interface Welcome {
  readonly op: 'welcome';
  readonly v: number;
  readonly address: string;
  readonly seed?: string;
  readonly maxPacketBytes: number;
  readonly resume: string;
  readonly resumed: boolean;
  /** The member credential, kept by the client for a move to another gateway; absent from gateways before it. */
  readonly credential?: string;
  /** True when this welcome accepted a move (hello with `from`): `address` is the member's new address. */
  readonly moved?: boolean;
}

export type Frame =
  | { readonly op: typeof OP_PACKET; readonly address: string; readonly bytes: Uint8Array }
  | {
      readonly op: typeof OP_REQUEST;
      readonly id: number;
      readonly timeoutMs: number;
      readonly expectReply: boolean;
      readonly address: string;
      readonly bytes: Uint8Array;
    }
  | { readonly op: typeof OP_RESULT; readonly id: number; readonly ok: true; readonly bytes: Uint8Array | undefined }
  | { readonly op: typeof OP_RESULT; readonly id: number; readonly ok: false; readonly reason: string }
  | { readonly op: typeof OP_STREAM; readonly id: number; readonly address: string; readonly bytes: Uint8Array }
  | { readonly op: typeof OP_REPLY; readonly id: number; readonly bytes: Uint8Array | undefined };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Largest address in a frame (u8 length). */
export const MAX_ADDRESS_BYTES = 255;

/**
 * Encoded addresses, by address: a gateway frames every packet with its sender's relay address, a
 * client every packet with its destination, from a small set. Cleared when full (a client or
 * gateway that sees more addresses than this only encodes again).
 */
const encodedAddresses = new Map<string, Uint8Array>();
const ENCODED_ADDRESSES_MAX = 4_096;

function addressBytes(address: string): Uint8Array {
  let bytes = encodedAddresses.get(address);
  if (bytes !== undefined) return bytes;
  bytes = encoder.encode(address);
  if (bytes.length > MAX_ADDRESS_BYTES) throw new RangeError(`address longer than ${MAX_ADDRESS_BYTES} bytes`);
  if (encodedAddresses.size >= ENCODED_ADDRESSES_MAX) encodedAddresses.clear();
  encodedAddresses.set(address, bytes);
  return bytes;
}

/** An address field's text: ASCII (every IP:port) without TextDecoder, which costs more than the rest of a frame. */
function addressText(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return decoder.decode(bytes);
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/**
 * Where a frame's bytes come from. Every byte of a frame is written, so a pooled, uninitialised
 * allocation is safe: the gateway passes Node's `Buffer.allocUnsafe` (a slice of a shared slab,
 * about a tenth of the cost of a `new Uint8Array` of a packet's size, one per relayed frame).
 */
export type Allocate = (size: number) => Uint8Array;

const newBytes: Allocate = (size) => new Uint8Array(size);

function setU32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
}

function frame(headerBytes: number, body: Uint8Array, allocate: Allocate): Uint8Array {
  const out = allocate(headerBytes + body.length);
  out.set(body, headerBytes);
  return out;
}

export function encodePacket(address: string, bytes: Uint8Array, allocate: Allocate = newBytes): Uint8Array {
  const addr = addressBytes(address);
  const out = frame(2 + addr.length, bytes, allocate);
  out[0] = OP_PACKET;
  out[1] = addr.length;
  out.set(addr, 2);
  return out;
}

export function encodeRequest(id: number, timeoutMs: number, expectReply: boolean, address: string, bytes: Uint8Array): Uint8Array {
  const addr = addressBytes(address);
  const out = frame(11 + addr.length, bytes, newBytes);
  out[0] = OP_REQUEST;
  setU32(out, 1, id);
  setU32(out, 5, Math.max(0, Math.min(0xffff_ffff, Math.ceil(timeoutMs))));
  out[9] = expectReply ? 1 : 0;
  out[10] = addr.length;
  out.set(addr, 11);
  return out;
}

export function encodeResult(
  id: number,
  result: { readonly ok: true; readonly bytes: Uint8Array | undefined } | { readonly ok: false; readonly reason: string },
  allocate: Allocate = newBytes,
): Uint8Array {
  const body = result.ok ? (result.bytes ?? new Uint8Array(0)) : encoder.encode(result.reason);
  const out = frame(6, body, allocate);
  out[0] = OP_RESULT;
  setU32(out, 1, id);
  out[5] = result.ok ? (result.bytes === undefined ? 0 : 1) : 2;
  return out;
}

export function encodeStream(id: number, from: string, bytes: Uint8Array, allocate: Allocate = newBytes): Uint8Array {
  const addr = addressBytes(from);
  const out = frame(6 + addr.length, bytes, allocate);
  out[0] = OP_STREAM;
  setU32(out, 1, id);
  out[5] = addr.length;
  out.set(addr, 6);
  return out;
}

export function encodeReply(id: number, bytes: Uint8Array | undefined): Uint8Array {
  const out = frame(6, bytes ?? new Uint8Array(0), newBytes);
  out[0] = OP_REPLY;
  setU32(out, 1, id);
  out[5] = bytes === undefined ? 0 : 1;
  return out;
}

function getU32(data: Uint8Array, at: number): number {
  return ((data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!) >>> 0;
}

/** The end of the address field that starts at `at` (its length byte), or -1 when it is truncated. */
function addressEnd(data: Uint8Array, at: number): number {
  if (data.length < at + 1) return -1;
  const end = at + 1 + data[at]!;
  return data.length < end ? -1 : end;
}

/** Decode one binary frame; a string says why it is malformed. Never throws. Byte fields are views into `data`. */
export function decodeFrame(data: Uint8Array): Frame | string {
  try {
    if (data.length === 0) return 'empty frame';
    switch (data[0]) {
      case OP_PACKET: {
        const end = addressEnd(data, 1);
        if (end < 0) return 'truncated address';
        return { op: OP_PACKET, address: addressText(data.subarray(2, end)), bytes: data.subarray(end) };
      }
      case OP_REQUEST: {
        if (data.length < 11) return 'truncated request';
        const flags = data[9]!;
        if (flags > 1) return 'unknown request flags';
        const end = addressEnd(data, 10);
        if (end < 0) return 'truncated address';
        return {
          op: OP_REQUEST,
          id: getU32(data, 1),
          timeoutMs: getU32(data, 5),
          expectReply: flags === 1,
          address: addressText(data.subarray(11, end)),
          bytes: data.subarray(end),
        };
      }
      case OP_RESULT: {
        if (data.length < 6) return 'truncated result';
        const id = getU32(data, 1);
        const status = data[5];
        const rest = data.subarray(6);
        if (status === 0) return rest.length === 0 ? { op: OP_RESULT, id, ok: true, bytes: undefined } : 'bytes after an empty result';
        if (status === 1) return { op: OP_RESULT, id, ok: true, bytes: rest };
        if (status === 2) return { op: OP_RESULT, id, ok: false, reason: decoder.decode(rest) };
        return 'unknown result status';
      }
      case OP_STREAM: {
        if (data.length < 6) return 'truncated stream';
        const end = addressEnd(data, 5);
        if (end < 0) return 'truncated address';
        return { op: OP_STREAM, id: getU32(data, 1), address: addressText(data.subarray(6, end)), bytes: data.subarray(end) };
      }
      case OP_REPLY: {
        if (data.length < 6) return 'truncated reply';
        const has = data[5];
        if (has === 0) return data.length === 6 ? { op: OP_REPLY, id: getU32(data, 1), bytes: undefined } : 'bytes after an empty reply';
        if (has === 1) return { op: OP_REPLY, id: getU32(data, 1), bytes: data.subarray(6) };
        return 'unknown reply flag';
      }
      default:
        return `unknown op ${data[0]}`;
    }
  } catch {
    return 'not UTF-8';
  }
}

/** Parse a handshake text frame; a string says why it is malformed. Never throws. */
export function parseHello(text: string): Hello | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'hello is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'hello is not an object';
  const v = value as Record<string, unknown>;
  if (v['op'] !== 'hello') return 'expected op "hello"';
  if (v['v'] !== PROTOCOL_VERSION) return `protocol version ${String(v['v'])} is not supported, expected ${PROTOCOL_VERSION}`;
  const name = v['name'];
  if (typeof name !== 'string' || name.length === 0 || encoder.encode(name).length > 255) return 'name must be a string of 1..255 bytes';
  const token = v['token'];
  if (token !== undefined && typeof token !== 'string') return 'token must be a string';
  const resume = v['resume'];
  if (resume !== undefined && typeof resume !== 'string') return 'resume must be a string';
  const credential = v['credential'];
  if (credential !== undefined && typeof credential !== 'string') return 'credential must be a string';
  const from = v['from'];
  if (from !== undefined && (typeof from !== 'string' || from.length === 0 || encoder.encode(from).length > MAX_ADDRESS_BYTES)) return `from must be an address of 1..${MAX_ADDRESS_BYTES} bytes`;
  return {
    op: 'hello',
    v: PROTOCOL_VERSION,
    name,
    ...(token === undefined ? {} : { token }),
    ...(resume === undefined ? {} : { resume }),
    ...(credential === undefined ? {} : { credential }),
    ...(from === undefined ? {} : { from }),
  };
}

/** Parse a welcome text frame; a string says why it is malformed. Never throws. */
export function parseWelcome(text: string): Welcome | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'welcome is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'welcome is not an object';
  const v = value as Record<string, unknown>;
  if (v['op'] !== 'welcome') return 'expected op "welcome"';
  if (v['v'] !== PROTOCOL_VERSION) return `protocol version ${String(v['v'])} is not supported`;
  const { address, seed, maxPacketBytes, resume, resumed, credential, moved } = v;
  if (typeof address !== 'string' || address.length === 0) return 'welcome without address';
  if (seed !== undefined && typeof seed !== 'string') return 'seed must be a string';
  if (typeof maxPacketBytes !== 'number' || !Number.isInteger(maxPacketBytes) || maxPacketBytes < 1) return 'bad maxPacketBytes';
  if (typeof resume !== 'string') return 'welcome without resume secret';
  if (credential !== undefined && typeof credential !== 'string') return 'credential must be a string';
  if (moved !== undefined && typeof moved !== 'boolean') return 'moved must be a boolean';
  return {
    op: 'welcome',
    v: PROTOCOL_VERSION,
    address,
    ...(seed === undefined ? {} : { seed }),
    maxPacketBytes,
    resume,
    resumed: resumed === true,
    ...(credential === undefined ? {} : { credential }),
    ...(moved === true ? { moved: true } : {}),
  };
}
