import type { MessageType } from './messages.js';

/**
 * Wire type code of every message: the first element of its msgpack array. Small integers so
 * each code is a single positive-fixint byte. Never renumber: peers decode by these.
 */
export const MESSAGE_TYPE_CODES = {
  ping: 0,
  'ping-req': 1,
  ack: 2,
  suspect: 3,
  alive: 4,
  dead: 5,
  'push-pull': 6,
  broadcast: 7,
  nack: 8,
  user: 9,
  error: 10,
} as const satisfies Record<MessageType, number>;

/**
 * Elements of each message array, type code included. Field order on the wire is the order of
 * the fields in messages.ts.
 */
export const MESSAGE_ARITY = {
  ping: 5,
  'ping-req': 7,
  ack: 3,
  suspect: 4,
  alive: 5,
  dead: 4,
  'push-pull': 4,
  broadcast: 5,
  nack: 2,
  user: 3,
  error: 2,
} as const satisfies Record<MessageType, number>;

/** Elements of one push-pull member entry: [name, address, meta, incarnation, state]. */
export const PUSH_PULL_ENTRY_ARITY = 5;

/** Bound on node names, addresses, broadcast keys and origins, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 512;

/** Bound on the text of an error message, in UTF-16 code units (JavaScript string length). */
export const MAX_ERROR_MESSAGE_CHARS = 4096;

export const MAX_UINT32 = 0xffff_ffff;
