/**
 * What the memberlist codec saw and did, per member: plain numbers, for stats and tests. "Parts"
 * are messages inside a packet (a compound's parts, or the packet's single message) or a stream's
 * message; skipped ones never reach the core.
 */
export interface MemberlistWireCounters {
  /** Packets with a hasCrc header whose CRC-32 did not match: dropped (memberlist ingestPacket). */
  crcFailures: number;
  /** Compress messages inflated (packets and streams). */
  compressedIn: number;
  /** Compress messages refused: an unknown algorithm, bad LZW, or more than the inflate cap. */
  inflateRefused: number;
  /** Packets and streams we sent compressed. */
  compressedOut: number;
  /** Parts of a type a packet (or stream) does not carry: skipped (memberlist handleCommand). */
  unknownParts: number;
  /** Compound parts announced beyond the end of the packet: dropped, the leading ones kept. */
  truncatedParts: number;
  /** Parts whose body did not decode (bad msgpack, a field of the wrong type or range): skipped. */
  malformedParts: number;
  /** User messages decoded (Serf's messages among them). */
  userMessagesIn: number;
  /** Alives and push-pull entries skipped for a bad Vsn (memberlist aliveNode), never relayed. */
  versionRefused: number;
  /** Push-pulls refused by memberlist verifyProtocol (incompatible versions). */
  pushPullsIncompatible: number;
  /** Packets or streams with a label header (memberlist >= 0.3, byte 244): refused. */
  labelled: number;
  /** Compound and compress messages nested deeper than the codec follows: skipped. */
  tooDeep: number;
}

export function createCounters(): MemberlistWireCounters {
  return {
    crcFailures: 0,
    compressedIn: 0,
    inflateRefused: 0,
    compressedOut: 0,
    unknownParts: 0,
    truncatedParts: 0,
    malformedParts: 0,
    userMessagesIn: 0,
    versionRefused: 0,
    pushPullsIncompatible: 0,
    labelled: 0,
    tooDeep: 0,
  };
}
