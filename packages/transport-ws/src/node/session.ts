import { createUdpTransport, type UdpTransport } from '@swim/transport-udp';
import { encodePacket, encodeStream } from '../protocol/framing.js';
import type { Connection } from './connection.js';
import type { RelaySettings } from './gateway-options.js';
import type { WsGatewayCounters } from './gateway-counters.js';
import { newResumeSecret } from './secret.js';

/** Open a relay socket (UDP + TCP on a free port): a browser member's address in the cluster. */
export function openRelay(settings: RelaySettings): Promise<UdpTransport> {
  return createUdpTransport({
    bind: { host: settings.host, port: 0 },
    ...(settings.advertiseHost === undefined ? {} : { advertise: { host: settings.advertiseHost, port: 0 } }),
    maxPacketBytes: settings.maxPacketBytes,
  });
}

/**
 * A browser member as the cluster sees it: its relay socket, bound to at most one connection.
 * The relay outlives a dropped connection for a grace period, so that a client that reconnects
 * with the resume secret keeps its address (and the cluster does not see it die and rejoin).
 */
export class Session {
  /** The secret the client shows to take this session back after a reconnect. */
  readonly resume = newResumeSecret();
  /** The connection speaking for this member, or undefined while it is away. */
  conn: Connection | undefined = undefined;
  #grace: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly name: string,
    readonly relay: UdpTransport,
  ) {}

  /** Keep the relay for `ms` after its connection dropped, then call `expire` unless a connection took it back. */
  startGrace(ms: number, expire: () => void): void {
    this.#grace = setTimeout(() => {
      if (this.conn === undefined) expire();
    }, ms);
  }

  cancelGrace(): void {
    clearTimeout(this.#grace);
    this.#grace = undefined;
  }

  /**
   * Forward what reaches the relay to the connection: packets are dropped while it is away or
   * more than `maxBufferedBytes` behind (like UDP would); streams are refused while it is away.
   */
  forwardRelay(counters: WsGatewayCounters, maxBufferedBytes: number): void {
    this.relay.listen({
      packet: (from, bytes) => {
        const conn = this.conn;
        if (conn === undefined || conn.bufferedBytes > maxBufferedBytes || !conn.send(encodePacket(from, bytes))) {
          counters.packetsDropped++;
          return;
        }
        counters.packetsOut++;
      },
      stream: (from, bytes, reply) => {
        const conn = this.conn;
        if (conn === undefined || !conn.isOpen) {
          counters.streamsRefused++;
          return reply(undefined);
        }
        const id = conn.awaitReply(reply);
        counters.streamsIn++;
        conn.send(encodeStream(id, from, bytes));
      },
    });
  }
}
