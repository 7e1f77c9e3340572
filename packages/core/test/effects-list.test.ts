import { describe, expect, it } from 'vitest';
import { encodePacket, SwimCore } from '../src/index.js';

/**
 * The core makes a call's effect list at its first effect (CoreContext.emit), not ahead of the
 * next call. What a caller gets back is its own list either way.
 */
describe('the effects a call returns', () => {
  const ping = (seq: number) =>
    encodePacket([{ type: 'ping', seq, target: 'a', sourceName: 'b', sourceAddress: 'b:1' }]);

  it('are a new list per call, even when empty: changing one does not reach the next call', () => {
    const core = new SwimCore({ name: 'a', address: 'a:1', seed: 1, now: 0 });
    const quiet1 = core.tick(0);
    const quiet2 = core.tick(0);
    expect(quiet1).toEqual([]);
    expect(quiet2).toEqual([]);
    expect(quiet1).not.toBe(quiet2);
    quiet1.push({ type: 'stream-reply', streamId: 1, bytes: new Uint8Array(0) });
    expect(core.tick(0)).toEqual([]);

    const answered = core.receivePacket('b:1', ping(1), 1);
    expect(answered.some((e) => e.type === 'send-packet' && e.to === 'b:1')).toBe(true);
    // The list handed out is not written to by later calls.
    const length = answered.length;
    core.receivePacket('b:1', ping(2), 2);
    expect(answered).toHaveLength(length);
  });
  // A call that throws drops its effects: hostile-peers.test.ts, 'a throw inside a call drops its effects'.
});
