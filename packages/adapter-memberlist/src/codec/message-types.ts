/**
 * memberlist's message type byte (memberlist net.go messageType): the first byte of every
 * message. New values are only ever appended upstream.
 */
export const MSG = {
  ping: 0,
  indirectPing: 1,
  ack: 2,
  suspect: 3,
  alive: 4,
  dead: 5,
  pushPull: 6,
  compound: 7,
  user: 8,
  compress: 9,
  encrypt: 10,
  nack: 11,
  hasCrc: 12,
  err: 13,
  /** memberlist >= 0.3 hasLabelMsg; 0.2.x (Serf 0.9) does not know it, so we never send it. */
  hasLabel: 244,
} as const;

/** memberlist lzwAlgo: the only compression algorithm of the compress message. */
export const LZW_ALGO = 0;

/** memberlist pushNodeState.State: StateAlive, StateSuspect, StateDead, StateLeft. */
export const NODE_STATES = ['alive', 'suspect', 'dead', 'left'] as const;

/** `[12][crc32 BE]` in front of a message (memberlist ingestPacket). */
export const CRC_HEADER_BYTES = 5;

/** `[7][count]`, then a big-endian uint16 length per part (memberlist makeCompoundMessage). */
export const COMPOUND_HEADER_BYTES = 2;
export const COMPOUND_LENGTH_BYTES = 2;
/** The compound count is one byte: memberlist 0.2.x overflows it past 255 parts. */
export const MAX_COMPOUND_PARTS = 255;
