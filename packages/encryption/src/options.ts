import { Keyring } from './keyring.js';
import { labelProblem } from './label.js';
import { isServiceId, type ServiceHandler } from './services.js';

/** Options of {@link secureTransport}; checked by {@link validateSecureTransportOptions}. */
export interface SecureTransportOptions {
  /** The cluster's keys; absent: nothing is encrypted (a label alone still separates clusters). */
  readonly keyring?: Keyring;
  /** Cluster label (memberlist Label): members with another label, or none, are ignored. */
  readonly label?: string;
  /**
   * Refuse what is not encrypted (memberlist GossipVerifyIncoming). Default true. Off, a packet no
   * key opens is taken as plaintext, so members that do not encrypt yet are still heard.
   */
  readonly verifyIncoming?: boolean;
  /** Encrypt what is sent (memberlist GossipVerifyOutgoing). Default true. */
  readonly verifyOutgoing?: boolean;
  /**
   * Crypto operations pending at once, sending and receiving together. WebCrypto is asynchronous: a
   * flood must not pile up promises. Beyond it a packet is dropped, a stream closed, a request
   * failed, and each counted in `inFlightDropped`. Default 1024.
   */
  readonly maxInFlight?: number;
  /** Service streams by service id 0..255 (services.ts). */
  readonly services?: Readonly<Record<number, ServiceHandler>>;
  /**
   * Called with what went wrong inside the wrapper (a handler that threw, a crypto failure), never
   * thrown into the event loop; `where` names the path (packet, stream, request, reply, service...).
   */
  readonly onError?: (error: unknown, where: string) => void;
}

/** Default of {@link SecureTransportOptions.maxInFlight}: crypto operations pending at once. */
export const DEFAULT_MAX_IN_FLIGHT = 1024;

const KNOWN = new Set(['keyring', 'label', 'verifyIncoming', 'verifyOutgoing', 'maxInFlight', 'services', 'onError']);

/** Every problem with `options` (an empty list when they are valid). */
export function validateSecureTransportOptions(options: SecureTransportOptions): string[] {
  if (typeof options !== 'object' || options === null) return ['options must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(options)) if (!KNOWN.has(key)) problems.push(`unknown option ${key}`);
  if (options.keyring !== undefined && !(options.keyring instanceof Keyring)) problems.push('keyring must be a Keyring (Keyring.from([...keys]))');
  if (options.label !== undefined) {
    const problem = labelProblem(options.label);
    if (problem !== undefined) problems.push(problem);
  }
  for (const name of ['verifyIncoming', 'verifyOutgoing'] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'boolean') problems.push(`${name} must be a boolean, got ${typeof value}`);
  }
  const maxInFlight = options.maxInFlight;
  if (maxInFlight !== undefined && !(Number.isInteger(maxInFlight) && maxInFlight >= 1 && maxInFlight <= 2 ** 31 - 1)) {
    problems.push(`maxInFlight must be an integer in 1..${2 ** 31 - 1}, got ${String(maxInFlight)}`);
  }
  if (options.services !== undefined) {
    if (typeof options.services !== 'object' || options.services === null) problems.push('services must be an object of handlers by service id');
    else {
      for (const [id, handler] of Object.entries(options.services)) {
        if (!isServiceId(Number(id)) || String(Number(id)) !== id) problems.push(`services: ${id} is not a service id (an integer in 0..255)`);
        if (typeof handler !== 'function') problems.push(`services[${id}] must be a function`);
      }
    }
  }
  if (options.onError !== undefined && typeof options.onError !== 'function') problems.push('onError must be a function');
  return problems;
}
