import { decodePacket, type Message } from '@swim/core';
import type { TransportHandlers } from '@swim/runtime';
import { createUdpTransport, type UdpTransport } from '@swim/transport-udp';
import { decodeFrame, OP_PACKET } from '../src/protocol/framing.js';

/** A UDP endpoint in the cluster that records the packets and stream requests it receives. */
export interface UdpPeer {
  readonly transport: UdpTransport;
  readonly packets: Array<{ from: string; bytes: Uint8Array }>;
  readonly streams: Uint8Array[];
}

/** Open a {@link UdpPeer}; its streams are answered by `answer` (no reply by default). Closed with `closeAll`. */
export async function udpPeer(opened: UdpTransport[], answer: (bytes: Uint8Array) => Uint8Array | undefined = () => undefined): Promise<UdpPeer> {
  const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  opened.push(transport);
  const packets: UdpPeer['packets'] = [];
  const streams: Uint8Array[] = [];
  const handlers: TransportHandlers = {
    packet: (from, bytes) => packets.push({ from, bytes: bytes.slice() }),
    stream: (_from, bytes, reply) => {
      streams.push(bytes.slice());
      reply(answer(bytes));
    },
  };
  transport.listen(handlers);
  return { transport, packets, streams };
}

/** The SWIM messages of a packet, or [] when it does not decode. */
export function messagesOf(bytes: Uint8Array): readonly Message[] {
  const decoded = decodePacket(bytes);
  return decoded.ok ? decoded.messages : [];
}

/** The SWIM messages in the PACKET frames a raw client received. */
export function receivedMessages(frames: readonly Uint8Array[]): Message[] {
  return frames.flatMap((f) => {
    const frame = decodeFrame(f);
    return typeof frame !== 'string' && frame.op === OP_PACKET ? messagesOf(frame.bytes) : [];
  });
}
