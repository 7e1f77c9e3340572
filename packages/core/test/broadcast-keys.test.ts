import { describe, expect, it } from 'vitest';
import { encodePacket, MAX_MESSAGES_PER_PACKET, type Effect, type Message } from '../src/index.js';
import { MAX_BROADCAST_KEYS } from '../src/dissemination/user-messages.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * The versions of user broadcasts a member remembers, to deliver each once, are bounded: a flood
 * of forged keys must not grow memory without bound (issue 10, finding 12).
 */

const delivered = (effects: readonly Effect[], key: string) => effects.some((e) => e.type === 'user-message' && e.key === key);

function broadcast(key: string, version = 1): Message {
  return { type: 'broadcast', key, origin: 'a', version, payload: new Uint8Array([1]) };
}

function flood(lone: LoneCore, keys: readonly string[]): void {
  for (let first = 0; first < keys.length; first += MAX_MESSAGES_PER_PACKET) {
    lone.receive('a:1', encodePacket(keys.slice(first, first + MAX_MESSAGES_PER_PACKET).map((key) => broadcast(key))));
  }
}

function lone(): LoneCore {
  const core = new LoneCore({ probeIntervalMs: 60_000, probeTimeoutMs: 500, gossipIntervalMs: 60_000, pushPullIntervalMs: 0 }, 13);
  core.introduce('a');
  return core;
}

describe('remembered broadcast keys', () => {
  it('a flood of distinct keys keeps at most MAX_BROADCAST_KEYS of them, and as many queued broadcasts', () => {
    const core = lone();
    const extra = 100;
    const keys = Array.from({ length: MAX_BROADCAST_KEYS + extra }, (_, i) => `forged-${i}`);
    flood(core, keys);
    expect(core.core.counters.broadcastKeysEvicted).toBe(extra);
    // Our own alive and a's, plus at most one queued copy per remembered key.
    expect(core.core.queuedBroadcasts).toBeLessThanOrEqual(MAX_BROADCAST_KEYS + 2);

    // A recent key is still remembered: its copy is not delivered twice.
    expect(delivered(core.receive('a:1', encodePacket([broadcast(keys.at(-1)!)])), keys.at(-1)!)).toBe(false);
    // The least recently active key was forgotten: a late copy is news again (as in memberlist, which dedupes nothing).
    expect(delivered(core.receive('a:1', encodePacket([broadcast(keys[0]!)])), keys[0]!)).toBe(true);
  });

  it('a key that keeps being heard is not the one forgotten', () => {
    const core = lone();
    core.receive('a:1', encodePacket([broadcast('busy')]));
    const keys = Array.from({ length: MAX_BROADCAST_KEYS + 10 }, (_, i) => `k-${i}`);
    flood(core, keys.slice(0, MAX_BROADCAST_KEYS - 1));
    core.receive('a:1', encodePacket([broadcast('busy')])); // a duplicate: activity
    flood(core, keys.slice(MAX_BROADCAST_KEYS - 1));
    expect(delivered(core.receive('a:1', encodePacket([broadcast('busy')])), 'busy')).toBe(false);
  });

  it('our own broadcast of a forgotten key still supersedes our earlier ones', () => {
    const core = lone();
    core.core.broadcast('mine', new Uint8Array([1]), core.now); // version 1
    core.core.broadcast('mine', new Uint8Array([2]), core.now); // version 2, which peers remember
    flood(core, Array.from({ length: MAX_BROADCAST_KEYS }, (_, i) => `other-${i}`));
    core.core.broadcast('mine', new Uint8Array([3]), core.now);
    // Had the version restarted at 1, a copy at version 2 would now be newer than ours.
    const stale = { type: 'broadcast', key: 'mine', origin: 'a', version: 2, payload: new Uint8Array([9]) } as const;
    expect(delivered(core.receive('a:1', encodePacket([stale])), 'mine')).toBe(false);
  });
});
