import { describe, expect, it } from 'vitest';
import { assemblePacket, encodeMessage, encodePacketWithParts } from '../src/codec/codec.js';
import { swimCodec } from '../src/codec/wire-codec.js';
import { sampleMessages } from './codec-samples.js';

/** The probe/ack path writes its message straight into the packet; the bytes must be those of the part-by-part path. */
describe('encodePacketWithParts', () => {
  it('is byte for byte assemblePacket([encodeMessage(first), ...parts]) for every message type', () => {
    const parts = sampleMessages.map(encodeMessage);
    for (const first of sampleMessages) {
      for (const count of [0, 1, 3, parts.length]) {
        const taken = parts.slice(0, count);
        expect(encodePacketWithParts(first, taken)).toEqual(assemblePacket([encodeMessage(first), ...taken]));
      }
    }
  });

  it('stays valid after later encodes (each packet a slab view nothing writes over)', () => {
    const big = Array.from({ length: 200 }, (_, i) => encodeMessage({ type: 'suspect', incarnation: i, node: `node-${i}`, from: 'node-a' }));
    const first = encodePacketWithParts(sampleMessages[0]!, big);
    const copy = first.slice();
    for (let i = 0; i < 50; i++) encodePacketWithParts(sampleMessages[2]!, big.slice(0, i));
    expect(first).toEqual(copy);
  });

  it('is the native codec method the core uses', () => {
    expect(swimCodec.encodePacketWithParts).toBe(encodePacketWithParts);
  });
});
