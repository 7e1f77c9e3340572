import { decodeBase64 } from './base64.js';
import { decodeKeyResponse, encodeKeyRequest } from './serf-internal-messages.js';
import { SERF_MESSAGE } from './serf-messages.js';
import type { SerfKeyOp } from './serf-keyring.js';

/** What a key command found (serf keymanager.go KeyResponse), with Serf's verdict. */
export interface SerfKeyReport {
  /** The operation. */
  readonly op: SerfKeyOp;
  /** Members alive or suspect when the query started, ourselves included (memberlist NumMembers). */
  readonly numNodes: number;
  /** Responses received. */
  readonly numResp: number;
  /** Responses that reported a failure or did not decode. */
  readonly numErr: number;
  /** Per node: its failure, or a warning it sent along with a success (a truncated key list). */
  readonly messages: Record<string, string>;
  /** Per key (base64): how many members hold it (list only). */
  readonly keys: Record<string, number>;
  /** Per primary key (base64; '' for members that named none): how many members use it. */
  readonly primaryKeys: Record<string, number>;
  /** Serf's error: "E/N nodes reported failure", "R/N nodes reported success"; absent on success. */
  readonly error?: string;
}

/** The replies of a query in flight, as the query service hands them out. */
export interface KeyQueryReplies
  extends AsyncIterable<{
    /** An ack (counted by nobody here) or a response. */
    readonly kind: 'ack' | 'response';
    /** The responder's node name. */
    readonly from: string;
    /** A response's payload; absent for an ack. */
    readonly payload?: Uint8Array;
  }> {
  /** Ends collection (the early end when everyone answered). */
  close(): void;
}

/**
 * The payload of a key command's query: `[7]{Key}` with the key decoded from base64 (serf
 * keymanager.go handleKeyRequest); list sends an empty key. Throws a RangeError naming the first
 * bad character as Go does ("illegal base64 data at input byte N"): no query is sent then.
 */
export function keyRequestPayload(op: SerfKeyOp, key: string | undefined): Uint8Array {
  if (op === 'list') return encodeKeyRequest(new Uint8Array(0));
  if (typeof key !== 'string') throw new RangeError(`a ${op} key command needs a key (base64)`);
  const raw = decodeBase64(key);
  if ('illegalAt' in raw) throw new RangeError(`illegal base64 data at input byte ${raw.illegalAt}`);
  return encodeKeyRequest(raw);
}

/**
 * Counts the answers as Serf's KeyManager does (serf keymanager.go streamKeyResp): each response
 * counts; one that is not a `[8]` key response, does not decode or reports `Result: false` is an
 * error; keys and primary keys are tallied. Stops (and closes the query) as soon as `numNodes`
 * responses came, else at the query's end.
 */
export async function collectKeyResponses(op: SerfKeyOp, replies: KeyQueryReplies, numNodes: number, warn?: (message: string) => void): Promise<SerfKeyReport> {
  let numResp = 0;
  let numErr = 0;
  const messages = new Map<string, string>();
  const keys = new Map<string, number>();
  const primaryKeys = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  try {
    for await (const reply of replies) {
      if (reply.kind !== 'response') continue;
      numResp++;
      const payload = reply.payload ?? new Uint8Array(0);
      const response = decodeKeyResponse(payload);
      if (response === undefined) {
        messages.set(reply.from, payload[0] === SERF_MESSAGE.keyResponse ? 'Failed to decode key query response' : 'Invalid key query response type');
        numErr++;
      } else {
        if (!response.result) {
          messages.set(reply.from, response.message);
          numErr++;
        } else if (response.message.length > 0) {
          messages.set(reply.from, response.message);
          warn?.(response.message);
        }
        for (const key of response.keys) bump(keys, key);
        bump(primaryKeys, response.primaryKey);
      }
      if (numResp === numNodes) break;
    }
  } finally {
    replies.close();
  }
  const error = numErr !== 0 ? `${numErr}/${numNodes} nodes reported failure` : numResp !== numNodes ? `${numResp}/${numNodes} nodes reported success` : undefined;
  return {
    op,
    numNodes,
    numResp,
    numErr,
    messages: Object.fromEntries(messages),
    keys: Object.fromEntries(keys),
    primaryKeys: Object.fromEntries(primaryKeys),
    ...(error === undefined ? {} : { error }),
  };
}
