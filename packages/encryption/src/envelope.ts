/**
 * What goes on the wire around a payload, as memberlist does it, so that a memberlist adapter can
 * reuse these functions byte for byte:
 *
 * - packet: `[label header]?` + (encrypted ? blob(AAD = label bytes) : plaintext)
 *   (memberlist sendMsgPacket / ingestPacket);
 * - stream request: `[label header]?` + (encrypted ? `[10][length u32 BE][blob]` with AAD = those 5
 *   bytes + label bytes : plaintext) (memberlist encryptLocalState / decryptRemoteState; the label
 *   header is written once, by the dialer, memberlist AddLabelHeaderToStream);
 * - stream reply: the same without the label header, its AAD still holding the stream's label.
 */
import { decryptBlob, encryptBlob, encryptedLength, type DecryptOptions, type EncryptOptions } from './aes-gcm.js';
import { concatBytes } from './bytes.js';
import { after, type AesGcmKey, type MaybePromise } from './engine.js';
import { labelBytes, labelHeader, readLabel } from './label.js';

/** memberlist encryptMsg: first byte of an encrypted stream. */
export const ENCRYPT_MSG_TYPE = 10;
/** `[10][length u32 BE]`. */
export const STREAM_HEADER_BYTES = 5;
/** Longest encrypted stream body accepted (memberlist maxPushStateBytes, 20 MiB). */
export const MAX_ENCRYPTED_STREAM_BYTES = 20 * 1024 * 1024;

/** `bytes` behind the label header of `label`, or as they are without a label. */
export function addLabel(bytes: Uint8Array, label: string | undefined): Uint8Array {
  return label === undefined ? bytes : concatBytes(labelHeader(label), bytes);
}

/** What {@link checkLabel} found: the bytes after the expected label header, or why they are refused. */
export type LabelCheck =
  | {
      /** The label is the expected one (or both are absent). */
      readonly ok: true;
      /** The bytes after the label header. */
      readonly rest: Uint8Array;
    }
  | {
      /** Another label, a missing or unexpected one, or a malformed header. */
      readonly ok: false;
      /** What was found and what was expected, for logs. */
      readonly reason: string;
    };

/**
 * Strip the label header and check it is `label` (memberlist ingestPacket and the stream handler:
 * `m.config.Label != packetLabel` is discarded, so no header when one is expected is refused too, and
 * a header when none is configured).
 */
export function checkLabel(bytes: Uint8Array, label: string | undefined): LabelCheck {
  const read = readLabel(bytes);
  if (!read.ok) return read;
  if (read.label === label) return { ok: true, rest: read.rest };
  const got = read.label === undefined ? 'no label' : `label ${JSON.stringify(read.label)}`;
  const want = label === undefined ? 'no label' : `label ${JSON.stringify(label)}`;
  return { ok: false, reason: `${got}, expected ${want}` };
}

/** An encrypted packet body, without the label header: a blob whose AAD is the label. */
export function encryptPacket(key: AesGcmKey, plaintext: Uint8Array, label: string | undefined, options?: EncryptOptions): MaybePromise<Uint8Array> {
  return encryptBlob(key, plaintext, labelBytes(label), options);
}

/** The plaintext of an encrypted packet body (label header removed), or undefined. */
export function decryptPacket(keys: readonly AesGcmKey[], body: Uint8Array, label: string | undefined, options?: DecryptOptions): MaybePromise<Uint8Array | undefined> {
  return decryptBlob(keys, body, labelBytes(label), options);
}

function streamHeader(blobLength: number): Uint8Array {
  const header = new Uint8Array(STREAM_HEADER_BYTES);
  header[0] = ENCRYPT_MSG_TYPE;
  new DataView(header.buffer).setUint32(1, blobLength, false);
  return header;
}

/** `[10][length][blob]`, without the label header (memberlist encryptLocalState). */
export function encryptStream(key: AesGcmKey, plaintext: Uint8Array, label: string | undefined, options: EncryptOptions = {}): MaybePromise<Uint8Array> {
  const header = streamHeader(encryptedLength(options.version ?? 1, plaintext.length));
  return after(encryptBlob(key, plaintext, concatBytes(header, labelBytes(label)), options), (blob) => concatBytes(header, blob));
}

/** Whether a stream body (label header removed) is encrypted: it starts with memberlist's encryptMsg. */
export function isEncryptedStream(body: Uint8Array): boolean {
  return body[0] === ENCRYPT_MSG_TYPE;
}

/** What {@link decryptStream} found: the stream's plaintext, or why it does not open. */
export type StreamDecryption =
  | {
      /** A key opened the stream. */
      readonly ok: true;
      /** The decrypted stream body. */
      readonly plaintext: Uint8Array;
    }
  | {
      /** Not encrypted, a bad header or length, or no key opens it. */
      readonly ok: false;
      /** Why the stream was refused, for logs. */
      readonly reason: string;
    };

/**
 * The plaintext of an encrypted stream body (memberlist decryptRemoteState). The length in the
 * header must be what follows it exactly (the transports carry whole messages) and at most
 * {@link MAX_ENCRYPTED_STREAM_BYTES}.
 */
export function decryptStream(keys: readonly AesGcmKey[], body: Uint8Array, label: string | undefined, options?: DecryptOptions): MaybePromise<StreamDecryption> {
  if (!isEncryptedStream(body)) return { ok: false, reason: 'stream is not encrypted' };
  if (body.length < STREAM_HEADER_BYTES) return { ok: false, reason: 'encrypted stream header truncated' };
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1, false);
  if (length > MAX_ENCRYPTED_STREAM_BYTES) return { ok: false, reason: `encrypted stream claims ${length} bytes, more than the limit ${MAX_ENCRYPTED_STREAM_BYTES}` };
  if (length !== body.length - STREAM_HEADER_BYTES) return { ok: false, reason: `encrypted stream claims ${length} bytes, carries ${body.length - STREAM_HEADER_BYTES}` };
  const header = body.subarray(0, STREAM_HEADER_BYTES);
  return after(decryptBlob(keys, body.subarray(STREAM_HEADER_BYTES), concatBytes(header, labelBytes(label)), options), (plaintext): StreamDecryption =>
    plaintext === undefined ? { ok: false, reason: 'no installed key decrypts the stream' } : { ok: true, plaintext },
  );
}

/** Why an incoming packet or stream was not accepted, for counting. */
export type OpenFailure = 'label' | 'decrypt' | 'plaintext';

/** What {@link openPacket} or {@link openStream} made of incoming bytes. */
export type Opened =
  | {
      /** The bytes are accepted. */
      readonly ok: true;
      /** The payload for the member, label header and encryption removed. */
      readonly plaintext: Uint8Array;
      /** Whether it arrived encrypted (false: plaintext accepted, or no keys configured). */
      readonly encrypted: boolean;
    }
  | {
      /** The bytes are dropped. */
      readonly ok: false;
      /** Which check refused them, for counting. */
      readonly failure: OpenFailure;
      /** Why, for logs. */
      readonly reason: string;
    };

/** How {@link openPacket} and {@link openStream} check incoming bytes. */
export interface OpenOptions extends DecryptOptions {
  /** The cluster label, or undefined for none. */
  readonly label: string | undefined;
  /** The keys to try, primary first; undefined when encryption is not configured. */
  readonly keys: readonly AesGcmKey[] | undefined;
  /** memberlist GossipVerifyIncoming: refuse what is not encrypted. */
  readonly verifyIncoming: boolean;
}

/**
 * An incoming packet, as memberlist ingestPacket: label checked; with keys, decrypted, or taken as
 * plaintext when no key opens it and `verifyIncoming` is off.
 */
export function openPacket(bytes: Uint8Array, options: OpenOptions): MaybePromise<Opened> {
  const checked = checkLabel(bytes, options.label);
  if (!checked.ok) return { ok: false, failure: 'label', reason: checked.reason };
  if (options.keys === undefined) return { ok: true, plaintext: checked.rest, encrypted: false };
  return after(decryptPacket(options.keys, checked.rest, options.label, options), (plaintext): Opened => {
    if (plaintext !== undefined) return { ok: true, plaintext, encrypted: true };
    if (!options.verifyIncoming) return { ok: true, plaintext: checked.rest, encrypted: false };
    return { ok: false, failure: 'decrypt', reason: 'no installed key decrypts the packet' };
  });
}

/**
 * An incoming stream request (`labelHeader` true: the dialer wrote one when labelled) or reply
 * (false), as memberlist readStream: an encrypted stream must decrypt, and needs keys ("Remote state
 * is encrypted and encryption is not configured"); a plaintext one is refused with keys and
 * `verifyIncoming` ("Encryption is configured but remote state is not encrypted").
 */
export function openStream(bytes: Uint8Array, options: OpenOptions & { readonly labelHeader: boolean }): MaybePromise<Opened> {
  let body = bytes;
  if (options.labelHeader) {
    const checked = checkLabel(bytes, options.label);
    if (!checked.ok) return { ok: false, failure: 'label', reason: checked.reason };
    body = checked.rest;
  }
  if (isEncryptedStream(body)) {
    if (options.keys === undefined) return { ok: false, failure: 'decrypt', reason: 'remote state is encrypted and encryption is not configured' };
    return after(decryptStream(options.keys, body, options.label, options), (decrypted): Opened =>
      decrypted.ok ? { ok: true, plaintext: decrypted.plaintext, encrypted: true } : { ok: false, failure: 'decrypt', reason: decrypted.reason },
    );
  }
  if (options.keys !== undefined && options.verifyIncoming) {
    return { ok: false, failure: 'plaintext', reason: 'encryption is configured but remote state is not encrypted' };
  }
  return { ok: true, plaintext: body, encrypted: false };
}

/** How {@link sealPacket} and {@link sealStream} wrap outgoing bytes. */
export interface SealOptions extends EncryptOptions {
  /** The cluster label to put in front (and to authenticate as additional data), or undefined for none. */
  readonly label: string | undefined;
  /** The primary key, or undefined to send plaintext (no keyring, or verifyOutgoing off). */
  readonly key: AesGcmKey | undefined;
}

/** An outgoing packet: label header, then the blob or the plaintext. */
export function sealPacket(plaintext: Uint8Array, options: SealOptions): MaybePromise<Uint8Array> {
  if (options.key === undefined) return addLabel(plaintext, options.label);
  return after(encryptPacket(options.key, plaintext, options.label, options), (body) => addLabel(body, options.label));
}

/** An outgoing stream request (`labelHeader` true) or reply (false). */
export function sealStream(plaintext: Uint8Array, options: SealOptions & { readonly labelHeader: boolean }): MaybePromise<Uint8Array> {
  const withHeader = (body: Uint8Array) => (options.labelHeader ? addLabel(body, options.label) : body);
  return options.key === undefined ? withHeader(plaintext) : after(encryptStream(options.key, plaintext, options.label, options), withHeader);
}
