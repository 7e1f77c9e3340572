/**
 * Service streams: requests between the secure transports of two members that never reach the core,
 * such as the key-rotation service (`swim keys`, carried member to member as Serf carries its key
 * queries). A stream whose plaintext starts with {@link SERVICE_STREAM_BYTE} is
 * `[0xc1][service id u8][body]`; 0xc1 is a byte msgpack never uses, and neither do the native codec
 * (streams start with protocol version 1) nor memberlist (message types 0..13 and 244).
 */

/** First byte of a service stream's plaintext (0xc1). */
export const SERVICE_STREAM_BYTE = 0xc1;
/** The key-rotation service (list, install, use, remove). */
export const KEY_OPS_SERVICE = 1;

/** A service request as its {@link ServiceHandler} sees it. */
export interface ServiceRequest {
  /** The peer's address as the inner transport reports it (for a stream, often an ephemeral port). */
  readonly from: string;
  /** The request's bytes after the service byte and service id, already decrypted. */
  readonly body: Uint8Array;
  /** Whether the request arrived encrypted under a key of our keyring. */
  readonly encrypted: boolean;
}

/** Answers a service request; undefined closes the stream without a reply. */
export type ServiceHandler = (request: ServiceRequest) => Promise<Uint8Array | undefined> | Uint8Array | undefined;

const plaintextHandlers = new WeakSet<ServiceHandler>();

/**
 * Mark `handler` as willing to act on requests that did not arrive encrypted. Service requests are
 * refused unless they arrived encrypted; only a handler marked here sees plaintext ones. Never use it
 * for anything that changes state (the key-ops service must only act on encrypted requests).
 */
export function plaintextService(handler: ServiceHandler): ServiceHandler {
  plaintextHandlers.add(handler);
  return handler;
}

/** Whether `handler` was marked with {@link plaintextService}. */
export function acceptsPlaintext(handler: ServiceHandler): boolean {
  return plaintextHandlers.has(handler);
}

/** `[0xc1][service][body]`; throws RangeError for a service id outside 0..255. */
export function serviceRequestBytes(service: number, body: Uint8Array): Uint8Array {
  if (!isServiceId(service)) throw new RangeError(`service id must be an integer in 0..255, got ${String(service)}`);
  const bytes = new Uint8Array(2 + body.length);
  bytes[0] = SERVICE_STREAM_BYTE;
  bytes[1] = service;
  bytes.set(body, 2);
  return bytes;
}

/** Whether a stream's plaintext is a service request (it may still be malformed). */
export function isServiceStream(plaintext: Uint8Array): boolean {
  return plaintext[0] === SERVICE_STREAM_BYTE;
}

/** Service id and body of a service request, or undefined when it has no service id. */
export function parseServiceRequest(plaintext: Uint8Array):
  | {
      /** The service id, 0..255. */
      readonly service: number;
      /** The bytes after the service id. */
      readonly body: Uint8Array;
    }
  | undefined {
  if (plaintext.length < 2 || plaintext[0] !== SERVICE_STREAM_BYTE) return undefined;
  return { service: plaintext[1]!, body: plaintext.subarray(2) };
}

export function isServiceId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255;
}
