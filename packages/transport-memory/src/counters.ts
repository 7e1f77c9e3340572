/** Why the network dropped a packet. */
export type DropCause =
  /** Uniform loss (`setLoss`). */
  | 'loss'
  /** One-way loss on a link (`setLinkLoss`). */
  | 'link-loss'
  /** The two ends are on different sides of a partition. */
  | 'partition'
  /** Larger than `maxPacketBytes`: a real UDP transport would refuse to send it. */
  | 'oversize'
  /** The destination crashed. */
  | 'crashed'
  /** Nobody listens at the destination: unknown address, not listening yet, or closed. */
  | 'unreachable';

/** Every {@link DropCause}, in the order of `NetworkCounters.dropped`'s keys (for reports and tables). */
export const DROP_CAUSES: readonly DropCause[] = ['loss', 'link-loss', 'partition', 'oversize', 'crashed', 'unreachable'];

/**
 * Running totals of one {@link MemoryNetwork}. A packet is counted as sent once, then as delivered
 * or dropped once; packets held by a pause or a blackout are neither until they are released.
 */
export interface NetworkCounters {
  /** Packets sent by open transports, those dropped or held later included. */
  packetsSent: number;
  /** Packets handed to a listening transport's `packet` handler. */
  packetsDelivered: number;
  /** Sum of `dropped`. */
  packetsDropped: number;
  /** Dropped packets by cause. */
  dropped: Record<DropCause, number>;
  /** Bytes of the packets counted in `packetsSent`. */
  bytesSent: number;
  /** Bytes of the packets counted in `packetsDelivered`. */
  bytesDelivered: number;
  /** Packets held right now by blackouts (a gauge, not a total). */
  packetsHeld: number;
  /** Stream requests opened, and how each ended (`done` called with ok or a failure). */
  streamsOpened: number;
  /** Requests that ended with ok: a reply, or a one-way request written. */
  streamsOk: number;
  /** Requests that failed: refused, timed out, closed without reply, reset by the peer's close or crash, or ended by their own transport's. */
  streamsFailed: number;
  /** Request and reply bytes carried by streams. */
  streamBytes: number;
}

export function zeroCounters(): NetworkCounters {
  return {
    packetsSent: 0,
    packetsDelivered: 0,
    packetsDropped: 0,
    dropped: { loss: 0, 'link-loss': 0, partition: 0, oversize: 0, crashed: 0, unreachable: 0 },
    bytesSent: 0,
    bytesDelivered: 0,
    packetsHeld: 0,
    streamsOpened: 0,
    streamsOk: 0,
    streamsFailed: 0,
    streamBytes: 0,
  };
}

export function copyCounters(c: NetworkCounters): NetworkCounters {
  return { ...c, dropped: { ...c.dropped } };
}
