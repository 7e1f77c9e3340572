import { secureTransport, type SecureTransportCounters } from '@swim/encryption';
import type { Transport } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { encodePacket, encodeStream } from '../protocol/framing.js';
import { allocateFrame, type Connection } from './connection.js';
import type { Containment } from './containment.js';
import type { RelaySettings } from './gateway-options.js';
import type { WsGatewayCounters } from './gateway-counters.js';
import type { KnownMoves } from './known-moves.js';
import { newResumeSecret } from './secret.js';

/** A browser member's transport into the cluster, and its encryption counters when it encrypts. */
export interface Relay {
  readonly transport: Transport;
  readonly encryption: Readonly<SecureTransportCounters> | undefined;
}

/**
 * Open a relay socket (UDP + TCP on a free port): a browser member's address in the cluster. Its
 * stream frames are capped at what a client may send (maxMessageBytes), its stream connections at
 * maxStreamsPerSession and the bytes it buffers for streams at one frame per stream, so that what
 * the cluster side can make a relay hold is bounded as well. With `encryption` the socket is
 * wrapped with secureTransport: the browser's plaintext is encrypted on its way into the cluster,
 * and only what decrypts (and is not a service stream, answered here) reaches the browser.
 */
export async function openRelay(settings: RelaySettings, onError: (error: unknown, where: string) => void): Promise<Relay> {
  const udp = await openRelaySocket(settings);
  if (settings.encryption === undefined) return { transport: udp, encryption: undefined };
  try {
    const secure = secureTransport(udp, { ...settings.encryption, onError: (error, where) => onError(error, `relay encryption (${where})`) });
    return { transport: secure, encryption: secure.counters };
  } catch (error) {
    await udp.close();
    throw error;
  }
}

function openRelaySocket(settings: RelaySettings) {
  return createUdpTransport({
    bind: { host: settings.host, port: 0 },
    ...(settings.advertiseHost === undefined ? {} : { advertise: { host: settings.advertiseHost, port: 0 } }),
    maxPacketBytes: settings.maxPacketBytes,
    maxFrameBytes: settings.maxFrameBytes,
    maxStreamConnections: settings.maxStreams,
    maxStreamConnectionsPerSource: settings.maxStreams,
    maxStreamBytesBuffered: settings.maxStreams * settings.maxFrameBytes,
    maxStreamBytesPerSource: settings.maxStreams * settings.maxFrameBytes,
  });
}

/**
 * A browser member as the cluster sees it: its relay socket, bound to at most one connection.
 * The relay outlives a dropped connection for a grace period, so that a client that reconnects
 * with the resume secret keeps its address (and the cluster does not see it die and rejoin).
 * A member that never joined gets no more than its join deadline, connected or not.
 */
export class Session {
  /** The secret the client shows to take this session back after a reconnect. */
  readonly resume = newResumeSecret();
  /** The connection speaking for this member, or undefined while it is away. */
  conn: Connection | undefined = undefined;
  /** Whether the cluster has answered or addressed this member yet (see {@link markJoined}). */
  joined = false;
  /** The relay address this member moved here from (a verified move), or undefined when it joined here afresh. */
  movedFrom: string | undefined = undefined;
  /** Client requests through the relay that have no result yet (each one a TCP connection). */
  requestsInFlight = 0;
  #grace: ReturnType<typeof setTimeout> | undefined;
  #joinDeadline: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly name: string,
    readonly relay: Transport,
    /** The client address this relay counts against for maxSessionsPerIp: its last connection's. */
    public addressKey: string,
    /** The relay's encryption counters, when it encrypts. */
    readonly encryption: Readonly<SecureTransportCounters> | undefined = undefined,
  ) {}

  /** Streams open through the relay, both ways. */
  get openStreams(): number {
    return this.requestsInFlight + (this.conn?.waitingStreams ?? 0);
  }

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

  /** Call `expire` after `ms` unless the member joined by then. */
  startJoinDeadline(ms: number, expire: () => void): void {
    this.#joinDeadline = setTimeout(() => {
      if (!this.joined) expire();
    }, ms);
  }

  /**
   * The member is in the cluster: something reached its relay from another address, or one of its
   * requests was answered (a join is a push-pull with a member). Ends the join deadline.
   */
  markJoined(): void {
    if (this.joined) return;
    this.joined = true;
    clearTimeout(this.#joinDeadline);
    this.#joinDeadline = undefined;
  }

  stopTimers(): void {
    this.cancelGrace();
    clearTimeout(this.#joinDeadline);
    this.#joinDeadline = undefined;
  }

  /**
   * Forward what reaches the relay to the connection, within its byte budget: packets are dropped
   * while it is away or over budget (like UDP would); streams are refused then, and beyond
   * `maxStreams` open through the relay.
   */
  forwardRelay(counters: WsGatewayCounters, maxStreams: number, containment: Containment, knownMoves: KnownMoves): void {
    this.#forwardPacket = containment.wrap('relay packet', (from: string, bytes: Uint8Array) => {
      if (from !== this.relay.address) this.markJoined();
      const conn = this.conn;
      if (conn === undefined || conn.sendWithin(encodePacket(from, bytes, allocateFrame)) !== 'sent') {
        counters.packetsDropped++;
        return;
      }
      counters.packetsOut++;
    });
    this.relay.listen({
      // What comes from the cluster proves the moves it carries (known-moves.ts); a packet another
      // relay of this gateway hands over (deliverPacket) passed our own check and proves nothing new.
      packet: containment.wrap('relay packet', (from: string, bytes: Uint8Array) => {
        if (from !== this.relay.address) knownMoves.learn(bytes);
        this.#forwardPacket(from, bytes);
      }),
      stream: containment.wrap('relay stream', (from: string, bytes: Uint8Array, reply: (bytes: Uint8Array | undefined) => void) => {
        this.markJoined();
        const conn = this.conn;
        if (conn === undefined || !conn.isOpen || this.openStreams >= maxStreams) {
          counters.streamsRefused++;
          return reply(undefined);
        }
        const id = conn.awaitReply(reply);
        if (conn.sendWithin(encodeStream(id, from, bytes, allocateFrame)) !== 'sent') {
          conn.takeReply(id);
          counters.streamsRefused++;
          return reply(undefined);
        }
        counters.streamsIn++;
      }),
    });
  }

  /**
   * A packet another relay of this gateway sent to this one, handed over in-process: it takes the
   * path of a packet the relay received (plaintext, as the relay's listener sees it after
   * decryption), without the two UDP syscalls, the kernel or the crypto in between.
   */
  deliverPacket(from: string, bytes: Uint8Array): void {
    this.#forwardPacket(from, bytes);
  }

  #forwardPacket: (from: string, bytes: Uint8Array) => void = () => {};
}
