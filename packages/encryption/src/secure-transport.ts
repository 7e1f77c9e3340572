/**
 * The Transport wrapper: encryption and cluster labels in the layer that touches bytes, so the core
 * stays pure and synchronous. It wraps any {@link Transport} (UDP, WebSocket, memory) and gives the
 * member another one; on the wire it speaks memberlist's envelopes (envelope.ts).
 *
 * With an asynchronous engine (WebCrypto) packets may leave and arrive in another order than they
 * were given; the protocol tolerates reordering (UDP reorders too). What would pile up is bounded:
 * at most `maxInFlight` crypto operations are pending; beyond that input is dropped and counted. A
 * synchronous engine (node:crypto) makes no promise at all: each packet is sealed or opened at once. Nothing that
 * fails the label check or decryption ever reaches the inner handlers, and nothing is thrown into
 * the event loop: bad input is counted, exceptions go to `onError`.
 */
import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import { encryptionOverhead } from './aes-gcm.js';
import { after, type MaybePromise } from './engine.js';
import { concatBytes } from './bytes.js';
import { zeroCounters, type SecureTransportCounters } from './counters.js';
import { checkLabel, decryptPacket, decryptStream, encryptPacket, encryptStream, isEncryptedStream } from './envelope.js';
import type { Keyring } from './keyring.js';
import { labelHeader } from './label.js';
import { DEFAULT_MAX_IN_FLIGHT, validateSecureTransportOptions, type SecureTransportOptions } from './options.js';
import { acceptsPlaintext, isServiceId, isServiceStream, parseServiceRequest, serviceRequestBytes, type ServiceHandler } from './services.js';

/**
 * A {@link Transport} that adds a cluster label and memberlist's encryption around another one; made
 * by {@link secureTransport}. Its `maxPacketBytes` is the inner transport's minus the envelope.
 */
export interface SecureTransport extends Transport {
  /** The transport that carries the bytes. */
  readonly inner: Transport;
  /** The keyring in use (live: keys installed or removed later apply at once), or undefined when nothing is encrypted. */
  readonly keyring: Keyring | undefined;
  /** The cluster label sent and required, or undefined for none. */
  readonly label: string | undefined;
  /** Live counters (the same object; read it, do not change it). */
  readonly counters: Readonly<SecureTransportCounters>;
  /** Whether plaintext is refused (memberlist GossipVerifyIncoming); changed by `setVerify`. */
  readonly verifyIncoming: boolean;
  /** Whether what is sent is encrypted (memberlist GossipVerifyOutgoing); changed by `setVerify`. */
  readonly verifyOutgoing: boolean;
  /** Crypto operations pending right now (at most `maxInFlight`). */
  readonly inFlight: number;
  /**
   * Switch verification while running, to turn encryption on in a running cluster without a split
   * (memberlist GossipVerifyIncoming/Outgoing): with the key everywhere and both off, turn outgoing
   * on everywhere, then incoming on everywhere. Throws TypeError for a value that is not a boolean.
   */
  setVerify(options: { readonly incoming?: boolean; readonly outgoing?: boolean }): void;
  /**
   * A service stream to `to` (services.ts): `[0xc1][service][body]`, always encrypted when there is
   * a keyring (whatever `verifyOutgoing` says), and so must the reply be. Resolves with the reply's
   * plaintext, or a failure (refused, no reply, timeout); never rejects for network reasons.
   */
  requestService(to: string, service: number, body: Uint8Array, timeoutMs: number): Promise<StreamResult>;
}

/**
 * Wrap `inner` with encryption (a keyring) and/or a cluster label. Throws RangeError listing every
 * problem with the options (also when the label and the encryption overhead leave no room in a packet).
 */
export function secureTransport(inner: Transport, options: SecureTransportOptions): SecureTransport {
  const problems = validateSecureTransportOptions(options);
  if (typeof inner !== 'object' || inner === null || typeof inner.sendPacket !== 'function' || typeof inner.request !== 'function') {
    problems.unshift('inner must be a Transport');
  } else if (problems.length === 0) {
    const room = inner.maxPacketBytes - overheadOf(options);
    if (!(room >= 1)) problems.push(`no room left in a packet: the inner transport carries ${inner.maxPacketBytes} bytes, the envelope takes ${overheadOf(options)}`);
  }
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid secure transport options (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
  return new Secure(inner, options);
}

/** Bytes the envelope adds to a packet: memberlist subtracts encryptOverhead and the label from its budget too. */
function overheadOf(options: SecureTransportOptions): number {
  return (options.keyring === undefined ? 0 : encryptionOverhead(1)) + (options.label === undefined ? 0 : labelHeader(options.label).length);
}

type Answer = (bytes: Uint8Array | undefined) => void;

const NOTHING = (): void => {};

/**
 * The wrapper sends version 1 (as Serf and memberlist with protocol version 2 and up) and accepts
 * only that: the version byte is not authenticated, see DecryptOptions.
 */
const ACCEPTED = { versions: [1] } as const;

const ENCRYPTED_WITHOUT_KEYRING = 'reply is encrypted but encryption is not configured';

class Secure implements SecureTransport {
  readonly inner: Transport;
  readonly keyring: Keyring | undefined;
  readonly label: string | undefined;
  readonly #counters = zeroCounters();
  readonly #overhead: number;
  readonly #labelHeader: Uint8Array | undefined;
  readonly #maxInFlight: number;
  readonly #services: ReadonlyMap<number, ServiceHandler>;
  readonly #onError: ((error: unknown, where: string) => void) | undefined;
  #verifyIncoming: boolean;
  #verifyOutgoing: boolean;
  #inFlight = 0;
  #handlers: TransportHandlers | undefined;
  #closing: Promise<void> | undefined;
  /** How to fail each request not completed yet, for close(). */
  readonly #pending = new Set<(reason: string) => void>();

  constructor(inner: Transport, options: SecureTransportOptions) {
    this.inner = inner;
    this.keyring = options.keyring;
    this.label = options.label;
    this.#overhead = overheadOf(options);
    this.#labelHeader = options.label === undefined ? undefined : labelHeader(options.label);
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#services = new Map(Object.entries(options.services ?? {}).map(([id, handler]) => [Number(id), handler]));
    this.#onError = options.onError;
    this.#verifyIncoming = options.verifyIncoming ?? true;
    this.#verifyOutgoing = options.verifyOutgoing ?? true;
  }

  get address(): string {
    return this.inner.address;
  }

  get maxPacketBytes(): number {
    return this.inner.maxPacketBytes - this.#overhead;
  }

  get supportsStreams(): boolean {
    return this.inner.supportsStreams;
  }

  /** Join addresses resolve as the inner transport resolves them (host names through UDP's DNS lookup). */
  resolve(address: string): Promise<readonly string[]> {
    return this.inner.resolve?.(address) ?? Promise.resolve([address]);
  }

  get counters(): Readonly<SecureTransportCounters> {
    return this.#counters;
  }

  get verifyIncoming(): boolean {
    return this.#verifyIncoming;
  }

  get verifyOutgoing(): boolean {
    return this.#verifyOutgoing;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  setVerify(options: { readonly incoming?: boolean; readonly outgoing?: boolean }): void {
    const problems: string[] = [];
    if (options.incoming !== undefined && typeof options.incoming !== 'boolean') problems.push(`incoming must be a boolean, got ${typeof options.incoming}`);
    if (options.outgoing !== undefined && typeof options.outgoing !== 'boolean') problems.push(`outgoing must be a boolean, got ${typeof options.outgoing}`);
    if (problems.length > 0) throw new TypeError(`setVerify: ${problems.join('; ')}`);
    if (options.incoming !== undefined) this.#verifyIncoming = options.incoming;
    if (options.outgoing !== undefined) this.#verifyOutgoing = options.outgoing;
  }

  listen(handlers: TransportHandlers): void {
    if (this.#handlers !== undefined) throw new Error(`secure transport ${this.address} is already listening`);
    this.#handlers = handlers;
    this.inner.listen({
      packet: (from, bytes) => this.#onPacket(from, bytes),
      stream: (from, bytes, reply) => this.#onStream(from, bytes, reply),
    });
  }

  // ---- packets

  sendPacket(to: string, bytes: Uint8Array): void {
    if (this.#closing !== undefined) return;
    if (this.keyring === undefined || !this.#verifyOutgoing) {
      this.#sendInner(to, this.#withLabel(bytes));
      return;
    }
    const keyring = this.keyring;
    this.#crypto(
      'send-packet',
      () => after(keyring.cryptoKeys(), (keys) => encryptPacket(keys[0]!, bytes, this.label)),
      (body) => {
        this.#counters.packetsEncrypted++;
        if (this.#closing === undefined) this.#sendInner(to, this.#withLabel(body));
      },
      NOTHING,
    );
  }

  #sendInner(to: string, bytes: Uint8Array): void {
    try {
      this.inner.sendPacket(to, bytes);
    } catch (error) {
      this.#error(error, 'send-packet');
    }
  }

  #onPacket(from: string, bytes: Uint8Array): void {
    if (this.#closing !== undefined) return;
    const checked = checkLabel(bytes, this.label);
    if (!checked.ok) {
      this.#counters.labelMismatches++;
      return;
    }
    if (this.keyring === undefined) {
      this.#deliverPacket(from, checked.rest);
      return;
    }
    const keyring = this.keyring;
    const body = checked.rest;
    this.#crypto(
      'receive-packet',
      () => after(keyring.cryptoKeys(), (keys) => decryptPacket(keys, body, this.label, ACCEPTED)),
      (plaintext) => this.#received(from, body, plaintext),
      NOTHING,
    );
  }

  /** memberlist ingestPacket: decrypted, or what no key opens is plaintext only with verifyIncoming off. */
  #received(from: string, body: Uint8Array, plaintext: Uint8Array | undefined): void {
    if (plaintext !== undefined) {
      this.#counters.packetsDecrypted++;
      this.#deliverPacket(from, plaintext);
    } else if (!this.#verifyIncoming) {
      this.#counters.plaintextAccepted++;
      this.#deliverPacket(from, body);
    } else {
      this.#counters.decryptFailures++;
    }
  }

  #deliverPacket(from: string, bytes: Uint8Array): void {
    const handlers = this.#handlers;
    if (this.#closing !== undefined || handlers === undefined) return;
    try {
      handlers.packet(from, bytes);
    } catch (error) {
      this.#error(error, 'packet-handler');
    }
  }

  // ---- streams we accept

  #onStream(from: string, bytes: Uint8Array, reply: Answer): void {
    const answer = this.#once(reply);
    if (this.#closing !== undefined) return answer(undefined);
    const checked = checkLabel(bytes, this.label);
    if (!checked.ok) {
      this.#counters.labelMismatches++;
      return answer(undefined);
    }
    const body = checked.rest;
    if (isEncryptedStream(body)) {
      // memberlist readStream: "Remote state is encrypted and encryption is not configured".
      if (this.keyring === undefined) {
        this.#counters.decryptFailures++;
        return answer(undefined);
      }
      this.#openStream(this.keyring, body, (plaintext) => this.#dispatchStream(from, plaintext, true, answer), () => answer(undefined));
      return;
    }
    if (this.keyring !== undefined) {
      // memberlist readStream: "Encryption is configured but remote state is not encrypted".
      if (this.#verifyIncoming) {
        this.#counters.plaintextRefused++;
        return answer(undefined);
      }
      this.#counters.plaintextAccepted++;
    }
    this.#dispatchStream(from, body, false, answer);
  }

  #dispatchStream(from: string, plaintext: Uint8Array, encrypted: boolean, answer: Answer): void {
    const handlers = this.#handlers;
    if (this.#closing !== undefined || handlers === undefined) return answer(undefined);
    if (isServiceStream(plaintext)) {
      void this.#serve(from, plaintext, encrypted, answer);
      return;
    }
    try {
      handlers.stream(from, plaintext, this.#once((reply) => this.#reply(reply, answer, false)));
    } catch (error) {
      this.#error(error, 'stream-handler');
      answer(undefined);
    }
  }

  /** A service request: only encrypted ones reach a handler, unless it was marked for plaintext. */
  async #serve(from: string, plaintext: Uint8Array, encrypted: boolean, answer: Answer): Promise<void> {
    const request = parseServiceRequest(plaintext);
    const handler = request === undefined ? undefined : this.#services.get(request.service);
    if (request === undefined || handler === undefined || (!encrypted && !acceptsPlaintext(handler))) {
      this.#counters.serviceRefused++;
      return answer(undefined);
    }
    this.#counters.serviceRequests++;
    let result: Uint8Array | undefined;
    try {
      result = await handler({ from, body: request.body, encrypted });
    } catch (error) {
      this.#error(error, 'service');
      return answer(undefined);
    }
    if (result !== undefined && !(result instanceof Uint8Array)) {
      this.#error(new TypeError(`service ${request.service} returned ${typeof result}, not a Uint8Array`), 'service');
      return answer(undefined);
    }
    this.#reply(result, answer, true);
  }

  /** A stream reply: encrypted with verifyOutgoing (always for a service), no label header. */
  #reply(bytes: Uint8Array | undefined, answer: Answer, service: boolean): void {
    const keyring = this.keyring;
    if (bytes === undefined || keyring === undefined || !(this.#verifyOutgoing || service)) return answer(bytes);
    this.#sealStream(keyring, bytes, answer, () => answer(undefined));
  }

  // ---- streams we open

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    this.#request(to, bytes, options, done, false);
  }

  requestService(to: string, service: number, body: Uint8Array, timeoutMs: number): Promise<StreamResult> {
    if (!isServiceId(service)) throw new RangeError(`requestService: service must be an integer in 0..255, got ${String(service)}`);
    if (!(body instanceof Uint8Array)) throw new TypeError('requestService: body must be a Uint8Array');
    if (!(typeof timeoutMs === 'number' && timeoutMs >= 0 && Number.isFinite(timeoutMs))) throw new RangeError(`requestService: timeoutMs must be >= 0, got ${String(timeoutMs)}`);
    return new Promise((resolve) => this.#request(to, serviceRequestBytes(service, body), { timeoutMs, expectReply: true }, resolve, true));
  }

  /**
   * Encrypt (when due), hand to the inner transport, open the reply. The timeout runs in the inner
   * transport from when the request is handed over, after encryption: the wrapper keeps no timers, so
   * it runs on a virtual clock as on a real one.
   */
  #request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void, service: boolean): void {
    let finished = false;
    const finish = (result: StreamResult): void => {
      if (finished) return;
      finished = true;
      this.#pending.delete(fail);
      try {
        done(result);
      } catch (error) {
        this.#error(error, 'request-done');
      }
    };
    const fail = (reason: string): void => finish({ ok: false, reason });
    if (this.#closing !== undefined) {
      queueMicrotask(() => fail('transport closed'));
      return;
    }
    this.#pending.add(fail);
    const onResult = (result: StreamResult): void => {
      if (!finished) this.#onReply(result, finish, fail, service);
    };
    const keyring = this.keyring;
    if (keyring === undefined || !(this.#verifyOutgoing || service)) {
      this.#requestInner(to, this.#withLabel(bytes), options, onResult, fail);
      return;
    }
    this.#sealStream(
      keyring,
      bytes,
      (sealed) => {
        if (!finished) this.#requestInner(to, this.#withLabel(sealed), options, onResult, fail);
      },
      // Never synchronously: the caller has not returned from request() yet.
      (reason) => queueMicrotask(() => fail(reason)),
    );
  }

  #requestInner(to: string, bytes: Uint8Array, options: StreamOptions, onResult: (result: StreamResult) => void, fail: (reason: string) => void): void {
    try {
      this.inner.request(to, bytes, options, onResult);
    } catch (error) {
      this.#error(error, 'request');
      queueMicrotask(() => fail('the inner transport refused the request'));
    }
  }

  /** memberlist readStream on the dialer's side: the same rules as for a request, without the label header. */
  #onReply(result: StreamResult, finish: (result: StreamResult) => void, fail: (reason: string) => void, service: boolean): void {
    if (!result.ok) return finish(result);
    const body = result.bytes;
    if (body === undefined) return service ? fail('closed without a reply (service refused)') : finish(result);
    const keyring = this.keyring;
    if (isEncryptedStream(body)) {
      if (keyring === undefined) {
        this.#counters.decryptFailures++;
        return fail(ENCRYPTED_WITHOUT_KEYRING);
      }
      this.#openStream(keyring, body, (plaintext) => finish({ ok: true, bytes: plaintext }), fail);
      return;
    }
    if (keyring !== undefined) {
      if (this.#verifyIncoming || service) {
        this.#counters.plaintextRefused++;
        return fail('encryption is configured but the reply is not encrypted');
      }
      this.#counters.plaintextAccepted++;
    }
    finish(result);
  }

  close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#closing = this.inner.close();
      const pending = [...this.#pending];
      this.#pending.clear();
      queueMicrotask(() => {
        for (const fail of pending) fail('transport closed');
      });
    }
    return this.#closing;
  }

  // ---- helpers

  /** Seal a stream body, request or reply (memberlist encryptLocalState), counted. */
  #sealStream(keyring: Keyring, bytes: Uint8Array, sealed: (bytes: Uint8Array) => void, failed: (reason: string) => void): void {
    this.#crypto(
      'seal-stream',
      () => after(keyring.cryptoKeys(), (keys) => encryptStream(keys[0]!, bytes, this.label)),
      (body) => {
        this.#counters.streamsEncrypted++;
        sealed(body);
      },
      failed,
    );
  }

  /** Open an encrypted stream body, request or reply (memberlist decryptRemoteState), counted. */
  #openStream(keyring: Keyring, body: Uint8Array, opened: (plaintext: Uint8Array) => void, refused: (reason: string) => void): void {
    this.#crypto(
      'open-stream',
      () => after(keyring.cryptoKeys(), (keys) => decryptStream(keys, body, this.label, ACCEPTED)),
      (result) => {
        if (!result.ok) {
          this.#counters.decryptFailures++;
          return refused(result.reason);
        }
        this.#counters.streamsDecrypted++;
        opened(result.plaintext);
      },
      refused,
    );
  }

  /**
   * One crypto step. `work` runs now: a synchronous engine's result goes to `done` at once; an
   * asynchronous one's is pending until it settles, counted in `inFlight`, and no step starts while
   * `maxInFlight` are pending (`failed`, counted). What `work` throws goes to onError and `failed`.
   */
  #crypto<T>(where: string, work: () => MaybePromise<T>, done: (value: T) => void, failed: (reason: string) => void): void {
    if (this.#inFlight >= this.#maxInFlight) {
      this.#counters.inFlightDropped++;
      return failed('too many crypto operations in flight');
    }
    let result: MaybePromise<T>;
    try {
      result = work();
    } catch (error) {
      this.#error(error, where);
      return failed(`${where} failed`);
    }
    if (!(result instanceof Promise)) return done(result);
    this.#inFlight++;
    result.then(
      (value) => {
        this.#inFlight--;
        try {
          done(value);
        } catch (error) {
          this.#error(error, where);
        }
      },
      (error: unknown) => {
        this.#inFlight--;
        this.#error(error, where);
        failed(`${where} failed`);
      },
    );
  }

  #withLabel(bytes: Uint8Array): Uint8Array {
    return this.#labelHeader === undefined ? bytes : concatBytes(this.#labelHeader, bytes);
  }

  /** `reply` callable once (later calls ignored), never throwing. */
  #once(reply: Answer): Answer {
    let used = false;
    return (bytes) => {
      if (used) return;
      used = true;
      try {
        reply(bytes);
      } catch (error) {
        this.#error(error, 'reply');
      }
    };
  }

  #error(error: unknown, where: string): void {
    this.#counters.errors++;
    try {
      this.#onError?.(error, where);
    } catch {
      // onError itself threw: counted above, nowhere else to report it.
    }
  }
}
