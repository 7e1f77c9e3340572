import { formatKey, parseKey } from '../keyring.js';

/**
 * The key-operations service's request and reply bodies: small JSON documents (TextEncoder and
 * TextDecoder, so the same code runs in browsers). Everything that arrives is hostile until
 * checked: the decoders return an error value naming the problem and never throw.
 */

/** What an operator asks every member to do with its keyring (Serf's key manager queries). */
export type KeyOp =
  | {
      /** Change nothing; every member reports its keyring (Serf list-keys). */
      op: 'list';
    }
  | {
      /** Add `key` after the member's other keys (memberlist AddKey, Serf install-key). */
      op: 'install';
      /** The key as base64 (16, 24 or 32 bytes). */
      key: string;
    }
  | {
      /** Make `key`, already installed, the primary (memberlist UseKey, Serf use-key). */
      op: 'use';
      /** The key as base64 (16, 24 or 32 bytes). */
      key: string;
    }
  | {
      /** Drop `key`; refused for the primary (memberlist RemoveKey, Serf remove-key). */
      op: 'remove';
      /** The key as base64 (16, 24 or 32 bytes). */
      key: string;
    };

/** One member's answer: whether the op applied, and its keyring afterwards (primary first). */
export interface KeyOpReply {
  /** Whether the op applied (always true for `list`). */
  readonly ok: boolean;
  /** Why the member refused the op; at most 512 characters. */
  readonly error?: string;
  /** The member's keys as canonical base64, primary first, each once. */
  readonly keys: readonly string[];
  /** The member's primary key as canonical base64; one of `keys`. */
  readonly primary: string;
}

/** The result of a decoder or checker that never throws: the checked value, or what is wrong with the input. */
export type Decoded<T> =
  | {
      /** The input is valid. */
      readonly ok: true;
      /** The checked value; keys in it are in canonical base64. */
      readonly value: T;
    }
  | {
      /** The input is refused. */
      readonly ok: false;
      /** What is wrong with it, for an error message; never contains a key. */
      readonly error: string;
    };

/** A request names one op and at most one key: anything longer is not ours. */
export const MAX_KEY_OP_REQUEST_BYTES = 1024;
/** A reply lists a keyring: 1,024 keys of 32 bytes fit with room to spare. */
export const MAX_KEY_OP_REPLY_BYTES = 64 * 1024;
/** Most keys a reply may list. */
export const MAX_KEY_OP_REPLY_KEYS = 1024;
/** Longest error text a reply may carry (it ends up on an operator's terminal). */
export const MAX_KEY_OP_ERROR_CHARS = 512;

/** Every valid {@link KeyOp} `op`. */
export const KEY_OP_NAMES: readonly KeyOp['op'][] = ['list', 'install', 'use', 'remove'];

const encoder = new TextEncoder();

/** The request body for `op`; throws a TypeError naming the problem when `op` is not a valid KeyOp. */
export function encodeKeyOpRequest(op: KeyOp): Uint8Array {
  const checked = checkKeyOp(op);
  if (!checked.ok) throw new TypeError(`invalid key op: ${checked.error}`);
  return encoder.encode(JSON.stringify(checked.value));
}

/**
 * The {@link KeyOp} in a request body, or the problem with it: more than {@link MAX_KEY_OP_REQUEST_BYTES},
 * not UTF-8 JSON, or not a valid op (see {@link checkKeyOp}). Never throws.
 */
export function decodeKeyOpRequest(bytes: Uint8Array): Decoded<KeyOp> {
  if (bytes.length > MAX_KEY_OP_REQUEST_BYTES) return fail(`request of ${bytes.length} bytes, at most ${MAX_KEY_OP_REQUEST_BYTES} allowed`);
  const json = parseJson(bytes);
  return json.ok ? checkKeyOp(json.value) : json;
}

/** The reply body; throws a TypeError naming the problem when `reply` would not pass {@link decodeKeyOpReply}. */
export function encodeKeyOpReply(reply: KeyOpReply): Uint8Array {
  const checked = checkKeyOpReply(reply);
  if (!checked.ok) throw new TypeError(`invalid key op reply: ${checked.error}`);
  const bytes = encoder.encode(JSON.stringify(checked.value));
  if (bytes.length > MAX_KEY_OP_REPLY_BYTES) throw new TypeError(`key op reply of ${bytes.length} bytes, at most ${MAX_KEY_OP_REPLY_BYTES} allowed`);
  return bytes;
}

/**
 * The {@link KeyOpReply} in a reply body, or the problem with it: more than {@link MAX_KEY_OP_REPLY_BYTES},
 * not UTF-8 JSON, or not a valid reply (see `checkKeyOpReply`). Never throws.
 */
export function decodeKeyOpReply(bytes: Uint8Array): Decoded<KeyOpReply> {
  if (bytes.length > MAX_KEY_OP_REPLY_BYTES) return fail(`reply of ${bytes.length} bytes, at most ${MAX_KEY_OP_REPLY_BYTES} allowed`);
  const json = parseJson(bytes);
  return json.ok ? checkKeyOpReply(json.value) : json;
}

/** Checks an op from anywhere (a decoded body, an operator's input); keys come back in canonical base64. */
export function checkKeyOp(value: unknown): Decoded<KeyOp> {
  if (!isPlainObject(value)) return fail('not an object');
  const op = value['op'];
  if (typeof op !== 'string' || !(KEY_OP_NAMES as readonly string[]).includes(op)) {
    return fail(`op must be one of ${KEY_OP_NAMES.join(', ')}, got ${describe(op)}`);
  }
  if (op === 'list') {
    const extra = unknownFields(value, ['op']);
    return extra === undefined ? { ok: true, value: { op } } : fail(extra);
  }
  const extra = unknownFields(value, ['op', 'key']);
  if (extra !== undefined) return fail(extra);
  const key = checkKey(value['key'], 'key');
  if (!key.ok) return key;
  return { ok: true, value: { op: op as 'install' | 'use' | 'remove', key: key.value } };
}

/** Checks a reply: keys unique and valid, primary among them, error text bounded. */
export function checkKeyOpReply(value: unknown): Decoded<KeyOpReply> {
  if (!isPlainObject(value)) return fail('not an object');
  const extra = unknownFields(value, ['ok', 'error', 'keys', 'primary']);
  if (extra !== undefined) return fail(extra);
  const ok = value['ok'];
  if (typeof ok !== 'boolean') return fail(`ok must be a boolean, got ${describe(ok)}`);
  const error = value['error'];
  if (error !== undefined) {
    if (typeof error !== 'string') return fail(`error must be a string, got ${describe(error)}`);
    if (error.length > MAX_KEY_OP_ERROR_CHARS) return fail(`error of ${error.length} characters, at most ${MAX_KEY_OP_ERROR_CHARS} allowed`);
  }
  const rawKeys = value['keys'];
  if (!Array.isArray(rawKeys)) return fail(`keys must be an array, got ${describe(rawKeys)}`);
  if (rawKeys.length === 0) return fail('keys is empty (a keyring always holds its primary key)');
  if (rawKeys.length > MAX_KEY_OP_REPLY_KEYS) return fail(`${rawKeys.length} keys, at most ${MAX_KEY_OP_REPLY_KEYS} allowed`);
  const keys: string[] = [];
  for (const [i, raw] of rawKeys.entries()) {
    const key = checkKey(raw, `keys[${i}]`);
    if (!key.ok) return key;
    if (keys.includes(key.value)) return fail(`keys[${i}] repeats an earlier key`);
    keys.push(key.value);
  }
  const primary = checkKey(value['primary'], 'primary');
  if (!primary.ok) return primary;
  if (!keys.includes(primary.value)) return fail('primary is not among keys');
  return { ok: true, value: { ok, ...(error === undefined ? {} : { error }), keys, primary: primary.value } };
}

function checkKey(value: unknown, field: string): Decoded<string> {
  if (typeof value !== 'string') return fail(`${field} must be a base64 key, got ${describe(value)}`);
  try {
    return { ok: true, value: formatKey(parseKey(value)) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return fail(`${field}: ${why.length > 200 ? `${why.slice(0, 200)}...` : why}`);
  }
}

function parseJson(bytes: Uint8Array): Decoded<unknown> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return fail('not UTF-8');
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return fail('not JSON');
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownFields(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  const extra = Object.keys(value).filter((name) => !allowed.includes(name));
  return extra.length === 0 ? undefined : `unknown field${extra.length === 1 ? '' : 's'} ${extra.slice(0, 4).map((name) => JSON.stringify(name.slice(0, 32))).join(', ')}`;
}

/** A short, safe description of a hostile value for an error message. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 32 ? `${value.slice(0, 32)}...` : value);
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : typeof value;
}

function fail(error: string): { readonly ok: false; readonly error: string } {
  return { ok: false, error };
}
