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

export interface WsClientCounters {
  packetsSent: number;
  bytesSent: number;
  packetsReceived: number;
  bytesReceived: number;
  packetsDropped: number;
  readonly dropped: Record<WsDropCause, number>;
  /** Requests this transport made. */
  streamsOpened: number;
  streamsOk: number;
  streamsFailed: number;
  /** Incoming streams handed to the handler. */
  streamsServed: number;
  /** Connections opened (the first one and every reconnect that got a welcome). */
  connects: number;
  /** Connections lost (closed without close() being called). */
  disconnects: number;
  /** Reconnect attempts started. */
  reconnectAttempts: number;
}

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
  };
}
