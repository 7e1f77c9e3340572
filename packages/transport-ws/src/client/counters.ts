/** Why the client did not send or deliver something. */
export type WsDropCause =
  /** Sent while the connection was being re-established. */
  | 'reconnecting'
  /** Sent after close(). */
  | 'closed'
  /** Larger than maxPacketBytes. */
  | 'oversize'
  /** The destination address does not fit a frame (over 255 bytes). */
  | 'bad-address'
  /** Received before listen() was called. */
  | 'not-listening'
  /** The packet or stream handler threw. */
  | 'handler-error'
  /** A frame from the gateway that is not the framing. */
  | 'malformed';

/** Running totals of one {@link WsTransport} (`transport.counters`) since it was created. */
export interface WsClientCounters {
  /** Packets written to the WebSocket for the gateway to relay. */
  packetsSent: number;
  /** Payload bytes of the packets counted in `packetsSent` (without the frame header). */
  bytesSent: number;
  /** Packets from the gateway handed to the member, those whose handler threw included. */
  packetsReceived: number;
  /** Payload bytes of the packets counted in `packetsReceived`. */
  bytesReceived: number;
  /** Everything dropped (packets, malformed frames, throwing handlers): the sum of `dropped`. */
  packetsDropped: number;
  /** `packetsDropped` by cause. */
  readonly dropped: Record<WsDropCause, number>;
  /** Requests this transport made. */
  streamsOpened: number;
  /** Of those, requests the gateway reported as done: a reply, or a one-way request written. */
  streamsOk: number;
  /** Of those, requests that failed: not connected, bad address, send failed, no result in time, connection lost, closed, or a failure the gateway reported. */
  streamsFailed: number;
  /** Incoming streams handed to the handler. */
  streamsServed: number;
  /** Connections opened (the first one and every reconnect that got a welcome). */
  connects: number;
  /** Connections lost (closed without close() being called). */
  disconnects: number;
  /** Reconnect attempts started (one per gateway tried). */
  reconnectAttempts: number;
  /** Welcomes that moved the member to a new relay address (another gateway, or its own after a restart). */
  moves: number;
}

/** A fresh {@link WsClientCounters} with every total at 0 (a transport starts from one). */
export function zeroWsClientCounters(): WsClientCounters {
  return {
    packetsSent: 0,
    bytesSent: 0,
    packetsReceived: 0,
    bytesReceived: 0,
    packetsDropped: 0,
    dropped: { reconnecting: 0, closed: 0, oversize: 0, 'bad-address': 0, 'not-listening': 0, 'handler-error': 0, malformed: 0 },
    streamsOpened: 0,
    streamsOk: 0,
    streamsFailed: 0,
    streamsServed: 0,
    connects: 0,
    disconnects: 0,
    reconnectAttempts: 0,
    moves: 0,
  };
}
