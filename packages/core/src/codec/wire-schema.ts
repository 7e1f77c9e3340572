import type { MessageType } from './messages.js';

/**
 * Wire type code of every message: the first element of its msgpack array. Small integers so
 * each code is a single positive-fixint byte. Never renumber: peers decode by these.
 */
export const MESSAGE_TYPE_CODES = {
  /** {@link PingMessage}. */
  ping: 0,
  /** {@link PingReqMessage}. */
  'ping-req': 1,
  /** {@link AckMessage}. */
  ack: 2,
  /** {@link SuspectMessage}. */
  suspect: 3,
  /** {@link AliveMessage}. */
  alive: 4,
  /** {@link DeadMessage}. */
  dead: 5,
  /** {@link PushPullMessage}. */
  'push-pull': 6,
  /** {@link BroadcastMessage}. */
  broadcast: 7,
  /** {@link NackMessage}. */
  nack: 8,
  /** {@link UserMessage}. */
  user: 9,
  /** {@link ErrorMessage}. */
  error: 10,
} as const satisfies Record<MessageType, number>;

/**
 * Elements of each message array, type code included. Field order on the wire is the order of
 * the fields in messages.ts. A message with more elements is a later version's, whose added
 * fields are skipped (docs/compatibility.md); one with fewer is malformed.
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

/** Elements of one push-pull member entry: [name, address, meta, incarnation, state] (more: a later version's, skipped). */
export const PUSH_PULL_ENTRY_ARITY = 5;

/** Elements of an alive that carries its member's protocol range: [code, incarnation, node, address, meta, min, max]. */
export const ALIVE_WITH_RANGE_ARITY = MESSAGE_ARITY.alive + 2;

/** Elements of a push-pull entry that carries its member's protocol range: [..., state, min, max]. */
export const ENTRY_WITH_RANGE_ARITY = PUSH_PULL_ENTRY_ARITY + 2;

/**
 * Elements of an alive that also names the address its member moved from: [..., min, max, movedFrom].
 * A nil there means no move (room for a later field after it).
 */
export const ALIVE_WITH_MOVE_ARITY = ALIVE_WITH_RANGE_ARITY + 1;

/** Elements of a push-pull entry that also names the address its member moved from: [..., min, max, movedFrom]. */
export const ENTRY_WITH_MOVE_ARITY = ENTRY_WITH_RANGE_ARITY + 1;

/**
 * Bound on member names (a message's node, from, target, sourceName, a broadcast's origin, a
 * push-pull entry's name), in UTF-8 bytes: Serf's ValidateNodeNames allows 128. Names are never
 * empty.
 */
export const MAX_NAME_BYTES = 128;

/**
 * Bound on addresses, in UTF-8 bytes: room for "host:port" with a long DNS name, or a bracketed
 * IPv6 address with a zone. Addresses are never empty, except a ping's or ping-req's
 * sourceAddress, where empty means "the packet's source".
 */
export const MAX_ADDRESS_BYTES = 255;

/** Bound on user broadcast keys, in UTF-8 bytes (any string, the empty one included). */
export const MAX_KEY_BYTES = 512;

/** Bytes a packet adds around its messages: packet size = this + Σ encodedSize(message). */
export const PACKET_HEADER_BYTES = 1;

/** Bound on the text of an error message, in UTF-16 code units (JavaScript string length). */
export const MAX_ERROR_MESSAGE_CHARS = 4096;

export const MAX_UINT32 = 0xffff_ffff;

// --- the largest control messages, for the smallest packet the config may allow ---

/** A message's fixarray header and its positive-fixint type code. */
const MESSAGE_HEAD_BYTES = 2;
/** A uint32 at its widest (0xce + 4 bytes). */
const UINT32_BYTES = 5;
/** The widest bin header for anything a packet can hold (bin16). */
const PACKET_BIN_HEADER_BYTES = 3;

/** A msgpack str of `length` bytes, header included. */
function strBytes(length: number): number {
  return (length <= 31 ? 1 : length <= 0xff ? 2 : length <= 0xffff ? 3 : 5) + length;
}

const NAME_FIELD_BYTES = strBytes(MAX_NAME_BYTES);
const ADDRESS_FIELD_BYTES = strBytes(MAX_ADDRESS_BYTES);

/** The largest ping: seq, target, sourceName, sourceAddress. */
export const MAX_PING_BYTES = MESSAGE_HEAD_BYTES + UINT32_BYTES + 2 * NAME_FIELD_BYTES + ADDRESS_FIELD_BYTES;
/** The largest ping-req: seq, target, targetAddress, nack, sourceName, sourceAddress. */
export const MAX_PING_REQ_BYTES = MESSAGE_HEAD_BYTES + UINT32_BYTES + 2 * NAME_FIELD_BYTES + 2 * ADDRESS_FIELD_BYTES + 1;
/** The largest suspect or dead: incarnation, node, from. */
export const MAX_ACCUSATION_BYTES = MESSAGE_HEAD_BYTES + UINT32_BYTES + 2 * NAME_FIELD_BYTES;

/** A protocol range: two versions up to 255 (protocol-range.ts MAX_PROTOCOL_VERSION), each a uint8 at its widest (0xcc + 1 byte). */
const RANGE_BYTES = 2 * 2;

/**
 * What a packet holding one alive needs besides the meta's bytes: version byte, head,
 * incarnation, the longest name and address, the meta's bin header, the protocol range and the
 * longest address moved from (a move, docs/design.md "A member moves"). An alive with `m` bytes
 * of meta fits any packet of at least this + m bytes.
 */
export const ALIVE_PACKET_OVERHEAD_BYTES =
  PACKET_HEADER_BYTES + MESSAGE_HEAD_BYTES + UINT32_BYTES + NAME_FIELD_BYTES + ADDRESS_FIELD_BYTES + PACKET_BIN_HEADER_BYTES + RANGE_BYTES + ADDRESS_FIELD_BYTES;

/** memberlist MetaMaxSize: the meta every member must be able to carry. */
const MEMBERLIST_META_MAX_BYTES = 512;

/**
 * The smallest maxPacketBytes that carries every packet the core builds without gossip at the
 * longest names and addresses: a ping with its buddy-system suspect (Lifeguard §IV.C), a
 * ping-req, and an alive with 512 bytes of meta (a refutation or a move); acks and nacks are smaller.
 */
export const MIN_PACKET_BYTES = Math.max(
  PACKET_HEADER_BYTES + MAX_PING_BYTES + MAX_ACCUSATION_BYTES,
  PACKET_HEADER_BYTES + MAX_PING_REQ_BYTES,
  ALIVE_PACKET_OVERHEAD_BYTES + MEMBERLIST_META_MAX_BYTES,
);
