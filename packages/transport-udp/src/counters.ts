/** Why a packet was not sent or not delivered. */
export type UdpDropCause =
  /** Larger than maxPacketBytes: the core budgets packets, so this is a bug upstream. */
  | 'oversize'
  /** The destination is not "host:port" / "[v6]:port". */
  | 'bad-address'
  /** The socket reported an error for the send (e.g. no route, address family mismatch). */
  | 'send-error'
  /** Sent after close(). */
  | 'closed'
  /** Received before listen() was called. */
  | 'not-listening'
  /** The packet handler threw. */
  | 'handler-error'
  /** The send queue was full (more than maxQueuedPackets waiting for pacing): the oldest queued packet was dropped. */
  | 'queue-full'
  /** Received while the receive slice was spent, with maxReceiveQueueBytes already waiting for later turns. */
  | 'receive-queue-full';

/**
 * Running totals of one {@link UdpTransport} (`transport.counters`) since it opened; the high-water
 * fields are maxima. {@link udpTransportMetrics} turns them into metric families.
 */
export interface UdpCounters {
  /** Datagrams handed to the socket, those whose send then failed (`dropped['send-error']`) included. */
  packetsSent: number;
  /** Bytes of the datagrams counted in `packetsSent`. */
  bytesSent: number;
  /** Datagrams received while listening, those dropped afterwards (`receive-queue-full`, `handler-error`) included. */
  packetsReceived: number;
  /** Bytes of the datagrams counted in `packetsReceived`. */
  bytesReceived: number;
  /** Datagrams not sent or not delivered: the sum of `dropped`. */
  packetsDropped: number;
  /** Packets that waited in the send queue (sent in a later event-loop turn because of maxBurst). */
  packetsQueued: number;
  /** Most packets waiting in the send queue at once. */
  sendQueueHighWater: number;
  /** Received datagrams handed to the member in a later event-loop turn (the receive slice was spent). */
  packetsDeferred: number;
  /** Most bytes of received datagrams waiting for a later turn at once. */
  receiveQueueHighWaterBytes: number;
  /** `packetsDropped` by cause. */
  readonly dropped: Record<UdpDropCause, number>;
  /** Requests this transport made (outgoing streams). */
  streamsOpened: number;
  /** Of those, requests that succeeded: a reply read, or a one-way request written. */
  streamsOk: number;
  /** Of those, requests that failed: timeout, bad address, connection error, bad or missing reply, full stream buffers, closed transport. */
  streamsFailed: number;
  /** Incoming connections accepted by the stream server. */
  streamsAccepted: number;
  /** Incoming streams handed to the handler. */
  streamsServed: number;
  /**
   * Incoming or reply frames that were oversize, truncated, trailed by extra bytes or refused by
   * the stream framing: the connection was closed.
   */
  streamsMalformed: number;
  /** Of those, frames larger than maxFrameBytes (closed once that was known, before buffering past it). */
  streamsOversize: number;
  /** Of those, bytes the stream framing refused as no frame of its kind ('malformed'). */
  streamsMalformedFraming: number;
  /**
   * Connections closed because a frame (request, reply to our request, or our reply to a slow
   * reader) would have pushed the bytes buffered across all streams past maxStreamBytesBuffered.
   */
  streamsOverBudget: number;
  /** Incoming connections closed because their source would have held more than maxStreamBytesPerSource. */
  streamsOverSourceBudget: number;
  /** Most bytes buffered across all stream connections at once. */
  streamBytesBufferedHighWater: number;
  /** Incoming connections closed because they outlived streamTimeoutMs. */
  streamsTimedOut: number;
  /** Incoming connections refused: before listen(), above maxStreamConnections, or above maxStreamConnectionsPerSource. */
  streamsRejected: number;
  /** Of those, refused because their source already had maxStreamConnectionsPerSource open. */
  streamsRejectedPerSource: number;
  /** The stream handler threw. */
  streamHandlerErrors: number;
}

/** A fresh {@link UdpCounters} with every total at 0 (a transport starts from one). */
export function zeroUdpCounters(): UdpCounters {
  return {
    packetsSent: 0,
    bytesSent: 0,
    packetsReceived: 0,
    bytesReceived: 0,
    packetsDropped: 0,
    packetsQueued: 0,
    sendQueueHighWater: 0,
    packetsDeferred: 0,
    receiveQueueHighWaterBytes: 0,
    dropped: { oversize: 0, 'bad-address': 0, 'send-error': 0, closed: 0, 'not-listening': 0, 'handler-error': 0, 'queue-full': 0, 'receive-queue-full': 0 },
    streamsOpened: 0,
    streamsOk: 0,
    streamsFailed: 0,
    streamsAccepted: 0,
    streamsServed: 0,
    streamsMalformed: 0,
    streamsOversize: 0,
    streamsMalformedFraming: 0,
    streamsOverBudget: 0,
    streamsOverSourceBudget: 0,
    streamBytesBufferedHighWater: 0,
    streamsTimedOut: 0,
    streamsRejected: 0,
    streamsRejectedPerSource: 0,
    streamHandlerErrors: 0,
  };
}
