import type { BroadcastMessage, UserMessage } from '../codec/messages.js';
import type { CoreContext } from '../context.js';
import { NO_MEMBER } from '../members/member-table.js';

/** Invalidation key of a user broadcast in the shared gossip queue. */
function broadcastKey(key: string): string {
  return 'u:' + key;
}

interface Seen {
  readonly version: number;
  readonly origin: string;
}

/**
 * Broadcast keys whose latest version a member remembers (Serf's MaxQueueDepth default is also
 * 4096). Beyond it the key with the oldest activity is forgotten, with its queued copy: a flood of
 * forged keys costs at most this many entries (each at most 512 + 128 bytes of strings). A
 * forgotten key's late copies are delivered again, as memberlist (which dedupes nothing) would.
 */
export const MAX_BROADCAST_KEYS = 4096;

/**
 * Application messages: broadcasts spread epidemically under an invalidation key (a newer version
 * of a key replaces the older one in every queue, memberlist NamedBroadcast), and messages to one
 * member over a packet or a stream (memberlist SendBestEffort / SendReliable).
 */
export class UserMessages {
  /**
   * Latest version seen per key; versions are Lamport-style so any member can supersede a key.
   * In order of last activity (a Map keeps insertion order): the first entry is evicted first.
   */
  readonly #seen = new Map<string, Seen>();
  /** The highest version we have sent, under any key: our versions only grow, even for a forgotten key. */
  #lastOwnVersion = 0;

  constructor(private readonly ctx: CoreContext) {}

  broadcast(key: string, payload: Uint8Array): void {
    const { ctx } = this;
    const version = Math.max(this.#seen.get(key)?.version ?? 0, this.#lastOwnVersion) + 1;
    const message: BroadcastMessage = { type: 'broadcast', key, origin: ctx.self.name, version, payload };
    const bytes = ctx.codec.encodeMessage(message);
    if (ctx.packetBytes(bytes.length) > ctx.config.maxPacketBytes) {
      throw new RangeError(`broadcast '${key}' is ${bytes.length} bytes encoded; packets hold at most ${ctx.config.maxPacketBytes}`);
    }
    this.#lastOwnVersion = version;
    this.#remember(key, { version, origin: ctx.self.name });
    ctx.broadcast(broadcastKey(key), bytes);
  }

  /** Deliver a broadcast we have not seen and pass it on; drop older or repeated ones. */
  onBroadcast(message: BroadcastMessage): void {
    if (message.version > MAX_BROADCAST_VERSION) {
      // Forged: no member counts this high, and taking it would leave our next version of the key
      // (and of every key, our versions only grow) past what the wire carries.
      this.ctx.counters.implausibleUpdates++;
      return;
    }
    const seen = this.#seen.get(message.key);
    if (seen !== undefined && !isNewer(message, seen)) {
      this.#remember(message.key, seen); // still circulating: keep it from eviction
      return;
    }
    this.#remember(message.key, { version: message.version, origin: message.origin });
    if (message.origin === this.ctx.self.name) return;
    this.ctx.emit({ type: 'user-message', from: message.origin, payload: message.payload, key: message.key });
    this.ctx.broadcast(broadcastKey(message.key), message);
  }

  /** Send to one member; `reliable` uses a stream (no reply expected), otherwise one packet. */
  send(to: string, payload: Uint8Array, reliable: boolean): void {
    const { ctx } = this;
    const member = ctx.table.idOf(to);
    if (member === NO_MEMBER) throw new RangeError(`unknown member '${to}'`);
    const message: UserMessage = { type: 'user', from: ctx.self.name, payload };
    if (reliable) {
      ctx.emit({
        type: 'stream-request',
        requestId: ctx.nextRequestId(),
        purpose: 'user',
        to: ctx.table.address(member),
        bytes: ctx.encodeStream(message),
        expectReply: false,
        timeoutMs: ctx.config.streamTimeoutMs,
      });
      return;
    }
    const bytes = ctx.codec.encodeMessage(message);
    if (ctx.packetBytes(bytes.length) > ctx.config.maxPacketBytes) {
      throw new RangeError(
        `user message is ${bytes.length} bytes encoded; a packet holds at most ${ctx.config.maxPacketBytes}: send it reliably`,
      );
    }
    ctx.sendParts(ctx.table.address(member), [bytes], 1);
  }

  /** Number of keys remembered (for tests and diagnostics). */
  get rememberedKeys(): number {
    return this.#seen.size;
  }

  /** Record `seen` as the key's latest activity; forget the least recently active keys beyond the cap. */
  #remember(key: string, seen: Seen): void {
    const entries = this.#seen;
    entries.delete(key);
    entries.set(key, seen);
    while (entries.size > MAX_BROADCAST_KEYS) {
      const oldest = entries.keys().next().value as string;
      entries.delete(oldest);
      this.ctx.queue.invalidate(broadcastKey(oldest));
      this.ctx.counters.broadcastKeysEvicted++;
    }
  }

  onUserMessage(message: UserMessage): void {
    this.ctx.emit({ type: 'user-message', from: message.from, payload: message.payload, key: undefined });
  }
}

/** Above any version a member reaches (one per broadcast: 2^40 is 35 years at one a millisecond), far below 2^53. */
export const MAX_BROADCAST_VERSION = 2 ** 40;

function isNewer(message: BroadcastMessage, seen: Seen): boolean {
  if (message.version !== seen.version) return message.version > seen.version;
  return message.origin > seen.origin;
}
