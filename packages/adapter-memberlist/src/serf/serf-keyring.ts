import { encodeBase64 } from './base64.js';
import { decodeKeyRequest, encodeKeyResponse, SERF_INTERNAL_QUERY, type SerfKeyResponse } from './serf-internal-messages.js';

/**
 * The keyring Serf's key queries read and change (memberlist Keyring, as serf internal_query.go
 * uses it): the host implements it over its own keyring and persists every change before the
 * call returns (serf writes its keyring_file before answering). A thrown error's message is sent
 * back to the asker as the member's failure.
 */
export interface SerfKeyring {
  /** Every key in standard base64, primary first (memberlist GetKeys). */
  list(): readonly string[];
  /** Add a key after the others; nothing when it is there already (memberlist AddKey). */
  install(key: Uint8Array): void | Promise<void>;
  /** Make an installed key the primary (memberlist UseKey). */
  use(key: Uint8Array): void | Promise<void>;
  /** Remove a key that is not the primary; nothing when it is not there (memberlist RemoveKey). */
  remove(key: Uint8Array): void | Promise<void>;
}

/** The key operations, by the name of their internal query. */
export type SerfKeyOp = 'list' | 'install' | 'use' | 'remove';

/** The internal query each key operation sends and answers ({@link SERF_INTERNAL_QUERY}). */
export const KEY_QUERY_NAMES: Readonly<Record<SerfKeyOp, string>> = Object.freeze({
  list: SERF_INTERNAL_QUERY.listKeys,
  install: SERF_INTERNAL_QUERY.installKey,
  use: SERF_INTERNAL_QUERY.useKey,
  remove: SERF_INTERNAL_QUERY.removeKey,
});

/** serf internal_query.go minEncodedKeyLength: a list response holds at most QueryResponseSizeLimit / 25 keys. */
const MIN_ENCODED_KEY_LENGTH = 25;

/**
 * Our answer to a key query (serf internal_query.go handleInstallKey, handleUseKey,
 * handleRemoveKey, handleListKeys), as the `[8]` key response payload. memberlist's refusals are
 * checked here so that their wording is memberlist's ("key size must be 16, 24 or 32 bytes",
 * "Requested key is not in the keyring", "Removing the primary key is not allowed").
 *
 * @param keyring undefined when this member runs without encryption.
 * @param fits whether a response payload, once wrapped in the query response, is within the
 *   response size limit: a key list is cut to fit (serf keyListResponseWithCorrectSize, with
 *   HEAD's cap at the real key count where 0.9.4 panics).
 * @param responseLimit the response size limit, bytes: at most limit / 25 keys are listed.
 */
export async function answerKeyQuery(
  op: SerfKeyOp,
  payload: Uint8Array,
  keyring: SerfKeyring | undefined,
  fits: (payload: Uint8Array) => boolean,
  responseLimit: number,
): Promise<
  | {
      /** The `[8]` key response to send, within the limit. */
      readonly payload: Uint8Array;
      /** What `payload` encodes (the key list cut to fit, with Serf's truncation warning). */
      readonly response: SerfKeyResponse;
    }
  | undefined
> {
  const response = await keyResponse(op, payload, keyring);
  if (op !== 'list' || !response.result) return { payload: encodeKeyResponse(response), response };
  const all = response.keys;
  let current: SerfKeyResponse = response;
  for (let i = Math.min(Math.floor(responseLimit / MIN_ENCODED_KEY_LENGTH), all.length); i >= 0; i--) {
    const encoded = encodeKeyResponse(current);
    if (fits(encoded)) return { payload: encoded, response: current };
    current = { ...current, keys: all.slice(0, i), message: `truncated key list response, showing first ${i} of ${all.length} keys` };
  }
  // serf: "Failed to truncate response so that it fits into message": no answer.
  return undefined;
}

async function keyResponse(op: SerfKeyOp, payload: Uint8Array, keyring: SerfKeyring | undefined): Promise<SerfKeyResponse> {
  const failed = (message: string): SerfKeyResponse => ({ result: false, message, keys: [], primaryKey: '' });
  if (op === 'list') {
    if (keyring === undefined) return failed('Keyring is empty (encryption not enabled)');
    const keys = [...keyring.list()];
    return { result: true, message: '', keys, primaryKey: keys[0] ?? '' };
  }
  const key = decodeKeyRequest(payload);
  // serf: a request that does not decode gets Result false and no message.
  if (key === undefined) return failed('');
  if (keyring === undefined) return failed('No keyring to modify (encryption not enabled)');
  const keys = keyring.list();
  const text = encodeBase64(key);
  try {
    if (op === 'install') {
      if (key.length !== 16 && key.length !== 24 && key.length !== 32) return failed('key size must be 16, 24 or 32 bytes');
      await keyring.install(key);
    } else if (op === 'use') {
      if (!keys.includes(text)) return failed('Requested key is not in the keyring');
      await keyring.use(key);
    } else {
      if (keys[0] === text) return failed('Removing the primary key is not allowed');
      await keyring.remove(key);
    }
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  return { result: true, message: '', keys: [], primaryKey: '' };
}
