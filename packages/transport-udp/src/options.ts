import { isIP } from 'node:net';
import type { HostPort } from './address.js';
import { lengthPrefixFraming, type StreamFraming } from './framing.js';

const MiB = 1024 * 1024;

/**
 * Options of {@link createUdpTransport}. Every problem is reported at once, in one RangeError
 * (see {@link validateUdpTransportOptions}).
 */
export interface UdpTransportOptions {
  /** IP literal and port to listen on (UDP and TCP, same port number); port 0 picks a free one. */
  readonly bind: {
    /** An IP literal: 127.0.0.1, ::1, or a wildcard (0.0.0.0, ::) with `advertise`. Host names are for join only. */
    readonly host: string;
    /** 0 to 65535; 0 lets the kernel pick a number free for both UDP and TCP (`UdpTransport.port` says which). */
    readonly port: number;
  };
  /**
   * What peers should dial (NAT, containers); defaults to the bind address. Port 0 means the bound
   * port. Required when binding a wildcard address (0.0.0.0 or ::).
   */
  readonly advertise?: {
    /** The host peers dial: an IP literal, or a name they resolve (memberlist's wire format needs an IP). */
    readonly host: string;
    /** 0 to 65535; 0 means the bound port. */
    readonly port: number;
  };
  /** Largest packet sent, the core's MTU. Default 1400 (fits a 1500-byte Ethernet frame). */
  readonly maxPacketBytes?: number;
  /**
   * Longest an incoming stream connection may live, from accept to close: an absolute deadline,
   * so a peer that sends nothing, trickles its request or never reads the reply is cut all the
   * same. Default 10 000 ms.
   */
  readonly streamTimeoutMs?: number;
  /**
   * Largest stream frame accepted, request or reply; a header announcing more closes the
   * connection before anything is buffered. Default 16 MiB: the largest push-pull the core sends
   * (16,384 entries, its default `maxPushPullEntries`, at up to ~910 bytes each with a 128-byte
   * name, a 255-byte address and 512 bytes of meta: 14.9 MB) with room for user state. An entry
   * of a member that moved also names the address it left (up to ~1,170 bytes): a cluster near
   * every bound at once whose members moved needs more.
   */
  readonly maxFrameBytes?: number;
  /**
   * Bytes buffered across all stream connections at once: requests being read, replies being read
   * (our own requests) and replies waiting for a slow reader. A frame counts in full from its
   * header on. A connection that would pass it is closed. Default 64 MiB.
   */
  readonly maxStreamBytesBuffered?: number;
  /** The same, for the incoming connections from one remote IP address. Default 16 MiB. */
  readonly maxStreamBytesPerSource?: number;
  /** Incoming stream connections open at once; more are refused. Default 256. */
  readonly maxStreamConnections?: number;
  /** Incoming stream connections open at once from one remote IP address. Default 32. */
  readonly maxStreamConnectionsPerSource?: number;
  /**
   * Send pacing: most datagrams written to the socket per event-loop turn; the rest wait in a
   * queue and go out in later turns (setImmediate). Default 32, what libuv reads per readiness
   * event on the receiving socket, so a burst does not overflow a receiver in the same process.
   */
  readonly maxBurst?: number;
  /**
   * Most datagrams waiting in the send queue; past it the oldest waiting one is dropped and
   * counted as `queue-full`. Default 4096.
   */
  readonly maxQueuedPackets?: number;
  /**
   * Receive pacing: datagrams handed to the member back to back form slices of at most 10 ms
   * (RECEIVE_SLICE_MS, for every transport of the process together), so that a burst cannot hold
   * the timers back; later ones wait for the next event-loop turns, in order. This bounds the bytes
   * of datagrams waiting so; past it new ones are dropped and counted as `receive-queue-full`.
   * Default 2 MiB, as much again as the kernel's receive buffer (`recvBufferBytes`).
   */
  readonly maxReceiveQueueBytes?: number;
  /**
   * Kernel receive buffer asked for the UDP socket (SO_RCVBUF). Default 2 MiB, as memberlist's
   * NetTransport (udpRecvBufSize). Linux caps it at net.core.rmem_max (and doubles it for its own
   * bookkeeping); `recvBufferBytes` on the transport reports what the kernel granted. The default
   * ~208 KiB overflows whenever a busy receiver is off the CPU for a moment: at 100,000 datagrams/s
   * across two processes it lost 1-2 % (bench/loopback.ts).
   */
  readonly recvBufferBytes?: number;
  /**
   * How requests and replies are delimited on stream connections, both the ones we open and the
   * ones we accept. Default {@link lengthPrefixFraming} (a 4-byte big-endian length); memberlist's
   * streams need the memberlist adapter's framing, which parses the message to find its end.
   */
  readonly streamFraming?: StreamFraming;
}

export const DEFAULTS = {
  maxPacketBytes: 1400,
  streamTimeoutMs: 10_000,
  maxFrameBytes: 16 * MiB,
  maxStreamBytesBuffered: 64 * MiB,
  maxStreamBytesPerSource: 16 * MiB,
  maxStreamConnections: 256,
  maxStreamConnectionsPerSource: 32,
  maxBurst: 32,
  maxQueuedPackets: 4096,
  maxReceiveQueueBytes: 2 * MiB,
  recvBufferBytes: 2 * MiB,
} as const;

/** Largest UDP payload over IPv4. */
const MAX_UDP_PAYLOAD = 65_507;
const MAX_INT32 = 2 ** 31 - 1;

export interface Settings {
  readonly bind: HostPort | { readonly host: string; readonly port: 0 };
  readonly maxPacketBytes: number;
  readonly streamTimeoutMs: number;
  readonly maxFrameBytes: number;
  readonly maxStreamBytesBuffered: number;
  readonly maxStreamBytesPerSource: number;
  readonly maxStreamConnections: number;
  readonly maxStreamConnectionsPerSource: number;
  readonly maxBurst: number;
  readonly maxQueuedPackets: number;
  readonly maxReceiveQueueBytes: number;
  readonly recvBufferBytes: number;
  readonly streamFraming: StreamFraming;
}

/**
 * Every problem with `options` at once, in one RangeError (the core's ConfigError does the same for
 * its config). Returns the options with every default filled in, `advertise` aside.
 */
export function validate(options: UdpTransportOptions): Required<Omit<UdpTransportOptions, 'advertise'>> {
  const problems: string[] = [];
  const integer = (name: keyof typeof DEFAULTS, min: number, max: number): number => {
    const value = options[name] ?? DEFAULTS[name];
    if (!Number.isInteger(value) || value < min || value > max) problems.push(`${name} must be an integer in ${min}..${max}, got ${value}`);
    return value;
  };
  const { bind, advertise } = options;
  if (bind === undefined || typeof bind.host !== 'string' || isIP(bind.host) === 0) {
    // One rule for names: we bind an IP; join resolves names (a name may stand for several addresses).
    problems.push(`bind.host must be an IP literal, got ${bind?.host} (bind needs an IP such as 127.0.0.1, ::1 or 0.0.0.0; host names are for join, which resolves them)`);
  }
  if (bind !== undefined && (!Number.isInteger(bind.port) || bind.port < 0 || bind.port > 65_535)) {
    problems.push(`bind.port must be an integer in 0..65535, got ${bind.port}`);
  }
  if (advertise !== undefined) {
    if (typeof advertise.host !== 'string' || advertise.host.length === 0) problems.push('advertise.host must be a non-empty string');
    if (!Number.isInteger(advertise.port) || advertise.port < 0 || advertise.port > 65_535) {
      problems.push(`advertise.port must be an integer in 0..65535, got ${advertise.port}`);
    }
  } else if (bind?.host === '0.0.0.0' || bind?.host === '::') {
    problems.push(`advertise is required when binding the wildcard address ${bind.host}`);
  }
  const streamFraming = options.streamFraming ?? lengthPrefixFraming;
  if (
    typeof streamFraming !== 'object' ||
    streamFraming === null ||
    typeof streamFraming.name !== 'string' ||
    typeof streamFraming.frame !== 'function' ||
    typeof streamFraming.reader !== 'function'
  ) {
    problems.push('streamFraming must be a StreamFraming: { name: string, frame(bytes), reader(maxFrameBytes, budget) }');
  }
  const settings: Settings = {
    bind: bind!,
    maxPacketBytes: integer('maxPacketBytes', 1, MAX_UDP_PAYLOAD),
    streamTimeoutMs: integer('streamTimeoutMs', 1, MAX_INT32),
    maxFrameBytes: integer('maxFrameBytes', 0, 2 ** 32 - 1),
    maxStreamBytesBuffered: integer('maxStreamBytesBuffered', 1, Number.MAX_SAFE_INTEGER),
    maxStreamBytesPerSource: integer('maxStreamBytesPerSource', 1, Number.MAX_SAFE_INTEGER),
    maxStreamConnections: integer('maxStreamConnections', 1, MAX_INT32),
    maxStreamConnectionsPerSource: integer('maxStreamConnectionsPerSource', 1, MAX_INT32),
    maxBurst: integer('maxBurst', 1, MAX_INT32),
    maxQueuedPackets: integer('maxQueuedPackets', 0, MAX_INT32),
    maxReceiveQueueBytes: integer('maxReceiveQueueBytes', 0, Number.MAX_SAFE_INTEGER),
    recvBufferBytes: integer('recvBufferBytes', 1, MAX_INT32),
    streamFraming,
  };
  // Caps that contradict each other would refuse what the larger one allows: say so now.
  const atMost = (small: keyof Settings, large: keyof Settings, why: string): void => {
    const a = settings[small] as number;
    const b = settings[large] as number;
    if (Number.isInteger(a) && Number.isInteger(b) && a > b) problems.push(`${small} (${a}) must not exceed ${large} (${b}): ${why}`);
  };
  atMost('maxFrameBytes', 'maxStreamBytesPerSource', 'a frame that large could never be buffered');
  atMost('maxStreamBytesPerSource', 'maxStreamBytesBuffered', 'the total caps every source');
  atMost('maxStreamConnectionsPerSource', 'maxStreamConnections', 'the total caps every source');
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid UDP transport options (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
  return settings;
}
