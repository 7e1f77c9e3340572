import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, receivedPart } from '../src/codec/codec.js';
import type { Message } from '../src/codec/messages.js';
import { sharedPartSlots } from '../src/codec/shared-parts.js';
import { cachedStringSlots } from '../src/codec/string-cache.js';

/**
 * The decoder's string cache and the shared-parts table grow only while they are hit more often
 * than missed (many members of one process seeing the same names and updates). A forger sending
 * ever new names and updates makes them miss, so they stay at their first size: what it sends
 * costs no memory beyond one table's fixed slots.
 */
describe('cache bounds under a flood of new names', () => {
  const forged = (i: number): Message => ({ type: 'alive', incarnation: 1 + (i % 9), node: `forged-${i}`, address: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}:1`, meta: new Uint8Array(0) });

  it('keeps both tables at their first size, then grows them once names and updates repeat', () => {
    const stringSlots = cachedStringSlots();
    const partSlots = sharedPartSlots();
    // 200,000 forged alives, 20 a packet, each name and update seen once, each passed on as received.
    for (let packet = 0; packet < 10_000; packet++) {
      const decoded = decodePacket(encodePacket(Array.from({ length: 20 }, (_, k) => forged(packet * 20 + k))));
      if (!decoded.ok) throw new Error(decoded.error.detail);
      for (let i = 0; i < decoded.messages.length; i++) receivedPart(decoded.messages, i);
    }
    expect(cachedStringSlots()).toBe(stringSlots);
    expect(sharedPartSlots()).toBe(partSlots);

    // The same 5,000 updates heard three times each (a simulator's members): both tables grow.
    for (let round = 0; round < 3; round++) {
      for (let packet = 0; packet < 250; packet++) {
        const messages = Array.from({ length: 20 }, (_, k) => forged(1_000_000 + packet * 20 + k));
        for (let member = 0; member < 3; member++) {
          const decoded = decodePacket(encodePacket(messages));
          if (!decoded.ok) throw new Error(decoded.error.detail);
          for (let i = 0; i < decoded.messages.length; i++) receivedPart(decoded.messages, i);
        }
      }
    }
    expect(cachedStringSlots()).toBeGreaterThan(stringSlots);
    expect(sharedPartSlots()).toBeGreaterThan(partSlots);
  });
});
