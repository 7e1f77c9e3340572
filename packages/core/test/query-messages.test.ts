import { describe, expect, it } from 'vitest';
import {
  createRng,
  decodeQueryFlags,
  encodeQueryFlags,
  isInternalQuery,
  newQueryId,
  QUERY_FLAG_ACK,
  QUERY_FLAG_NO_BROADCAST,
  userQueryProblem,
  type Rng,
} from '../src/index.js';

describe('query messages (serf messages.go)', () => {
  it("writes and reads Serf's flags: bit 0 ack, bit 1 no-broadcast", () => {
    expect([QUERY_FLAG_ACK, QUERY_FLAG_NO_BROADCAST]).toEqual([1, 2]);
    expect(encodeQueryFlags({ requestAck: true, noBroadcast: false })).toBe(1);
    expect(encodeQueryFlags({ requestAck: true, noBroadcast: true })).toBe(3);
    expect(encodeQueryFlags({ requestAck: false, noBroadcast: false })).toBe(0);
    expect(decodeQueryFlags(3)).toEqual({ requestAck: true, noBroadcast: true });
    // Bits Serf does not know are ignored, as its Ack() and NoBroadcast() ignore them.
    expect(decodeQueryFlags(0xfffc)).toEqual({ requestAck: false, noBroadcast: false });
    expect(decodeQueryFlags(0xffff_fffd)).toEqual({ requestAck: true, noBroadcast: false });
  });

  it('draws ids as Serf draws them: 31 random bits', () => {
    const rng = createRng(3);
    for (let i = 0; i < 1000; i++) {
      const id = newQueryId(rng);
      expect(Number.isInteger(id) && id >= 0 && id < 2 ** 31).toBe(true);
    }
    const top: Rng = { nextUint32: () => 0xffff_ffff };
    expect(newQueryId(top)).toBe(2 ** 31 - 1);
  });

  it("tells Serf's internal queries by their prefix", () => {
    expect(['_serf_ping', '_serf_conflict', '_serf_list-keys', '_serf_anything'].every(isInternalQuery)).toBe(true);
    expect(['greet', 'serf_ping', '_serfping', ' _serf_ping'].some(isInternalQuery)).toBe(false);
    expect(isInternalQuery(5 as unknown as string)).toBe(false);
  });

  it("refuses what the Serf agent refuses an application: _serf_ names, but for _serf_ping with no payload", () => {
    const none = new Uint8Array();
    expect(userQueryProblem('greet', none)).toBeUndefined();
    expect(userQueryProblem('_serf_ping', none)).toBeUndefined();
    expect(userQueryProblem('_serf_ping', new Uint8Array([1]))).toBe("Queries cannot contain the '_serf_' prefix");
    expect(userQueryProblem('_serf_conflict', none)).toBe("Queries cannot contain the '_serf_' prefix");
  });
});
