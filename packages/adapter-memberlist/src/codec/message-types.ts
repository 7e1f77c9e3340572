/**
 * memberlist's message type byte (memberlist net.go messageType): the first byte of every
 * message. New values are only ever appended upstream.
 */
export const MSG = {
  /** memberlist pingMsg: a direct probe, by packet or by stream. */
  ping: 0,
  /** memberlist indirectPingMsg: asks a member to probe another one for us. */
  indirectPing: 1,
  /** memberlist ackRespMsg: the answer to a ping. */
  ack: 2,
  /** memberlist suspectMsg: a member is suspected of having failed. */
  suspect: 3,
  /** memberlist aliveMsg: a member is alive at an incarnation, with its address, meta and Vsn. */
  alive: 4,
  /** memberlist deadMsg: a member is dead; sent by the member itself, it has left. */
  dead: 5,
  /** memberlist pushPullMsg: the full state exchange, on a stream. */
  pushPull: 6,
  /** memberlist compoundMsg: several messages in one packet. */
  compound: 7,
  /** memberlist userMsg: application bytes (Serf's messages travel in it). */
  user: 8,
  /** memberlist compressMsg: an LZW-compressed message. */
  compress: 9,
  /** memberlist encryptMsg: first byte of an encrypted stream (decrypted by `@swim/encryption`, not by the codec). */
  encrypt: 10,
  /** memberlist nackRespMsg: an indirect probe's target did not answer in time. */
  nack: 11,
  /** memberlist hasCrcMsg: a CRC-32 header in front of a packet's message. */
  hasCrc: 12,
  /** memberlist errMsg: an error reply on a stream. */
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
