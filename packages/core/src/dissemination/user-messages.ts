import type { BroadcastMessage, UserMessage } from '../codec/messages.js';
import { encodeMessage, encodePacket, PACKET_HEADER_BYTES } from '../codec/codec.js';
import type { CoreContext } from '../context.js';

/** Invalidation key of a user broadcast in the shared gossip queue. */
function broadcastKey(key: string): string {
  return 'u:' + key;
}

interface Seen {
  readonly version: number;
  readonly origin: string;
}

/**
 * Application messages: broadcasts spread epidemically under an invalidation key (a newer version
 * of a key replaces the older one in every queue, memberlist NamedBroadcast), and messages to one
 * member over a packet or a stream (memberlist SendBestEffort / SendReliable).
 */
export class UserMessages {
  /** Latest version seen per key; versions are Lamport-style so any member can supersede a key. */
  readonly #seen = new Map<string, Seen>();

  constructor(private readonly ctx: CoreContext) {}

  broadcast(key: string, payload: Uint8Array): void {
    const { ctx } = this;
    const version = (this.#seen.get(key)?.version ?? 0) + 1;
    const message: BroadcastMessage = { type: 'broadcast', key, origin: ctx.self.name, version, payload };
    const bytes = encodeMessage(message);
    if (bytes.length + PACKET_HEADER_BYTES > ctx.config.maxPacketBytes) {
      throw new RangeError(`broadcast '${key}' is ${bytes.length} bytes encoded; packets hold at most ${ctx.config.maxPacketBytes}`);
    }
    this.#seen.set(key, { version, origin: ctx.self.name });
    ctx.broadcast(broadcastKey(key), bytes);
  }

  /** Deliver a broadcast we have not seen and pass it on; drop older or repeated ones. */
  onBroadcast(message: BroadcastMessage): void {
    const seen = this.#seen.get(message.key);
    if (seen !== undefined && !isNewer(message, seen)) return;
    this.#seen.set(message.key, { version: message.version, origin: message.origin });
    if (message.origin === this.ctx.self.name) return;
    this.ctx.emit({ type: 'user-message', from: message.origin, payload: message.payload, key: message.key });
    this.ctx.broadcast(broadcastKey(message.key), message);
  }

  /** Send to one member; `reliable` uses a stream (no reply expected), otherwise one packet. */
  send(to: string, payload: Uint8Array, reliable: boolean): void {
    const { ctx } = this;
    const member = ctx.table.get(to);
    if (member === undefined) throw new RangeError(`unknown member '${to}'`);
    const message: UserMessage = { type: 'user', from: ctx.self.name, payload };
    if (reliable) {
      ctx.emit({
        type: 'stream-request',
        requestId: ctx.nextRequestId(),
        purpose: 'user',
        to: member.address,
        bytes: encodePacket([message]),
        expectReply: false,
        timeoutMs: ctx.config.streamTimeoutMs,
      });
      return;
    }
    const bytes = encodeMessage(message);
    if (bytes.length + PACKET_HEADER_BYTES > ctx.config.maxPacketBytes) {
      throw new RangeError(
        `user message is ${bytes.length} bytes encoded; a packet holds at most ${ctx.config.maxPacketBytes}: send it reliably`,
      );
    }
    ctx.sendParts(member.address, [bytes], 1);
  }

  onUserMessage(message: UserMessage): void {
    this.ctx.emit({ type: 'user-message', from: message.from, payload: message.payload, key: undefined });
  }
}

function isNewer(message: BroadcastMessage, seen: Seen): boolean {
  if (message.version !== seen.version) return message.version > seen.version;
  return message.origin > seen.origin;
}
