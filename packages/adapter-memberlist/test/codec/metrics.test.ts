import { metricFamilyProblem } from '@swim/runtime';
import { describe, expect, it } from 'vitest';
import { memberlistCodec, memberlistMetrics, type SerfCounters } from '../../src/index.js';

describe('memberlistMetrics: the codec and Serf counters as metric families', () => {
  it('every family is well formed and reads the counters at each snapshot', () => {
    const codec = memberlistCodec();
    const serf: { counters: SerfCounters } = { counters: { leaveIntents: 0, joinIntents: 2, refutedLeaveIntents: 3, userEvents: 0, duplicates: 5, queries: 1, internalQueries: 3, other: 0 } };
    const collect = memberlistMetrics(codec, serf);
    for (const family of collect()) expect(metricFamilyProblem(family), family.name).toBeUndefined();
    // A packet whose CRC does not match: refused, and counted under reason="crc".
    codec.decodePacket(Uint8Array.of(12, 0, 0, 0, 0, 0x00, 0x80));
    const refused = collect().find((f) => f.name === 'memberlist_refused_parts')!;
    expect(refused.samples.find((s) => s.labels['reason'] === 'crc')?.value).toBe(1);
    const serfFamily = collect().find((f) => f.name === 'serf_messages_received')!;
    expect(Object.fromEntries(serfFamily.samples.map((s) => [s.labels['kind'], s.value]))).toMatchObject({ join_intent: 2, refuted_leave_intent: 3, duplicate: 5, query: 1, internal_query: 3 });
  });

  it('without a Serf layer, only the wire families', () => {
    expect(memberlistMetrics(memberlistCodec())().map((f) => f.name)).toEqual([
      'memberlist_refused_parts',
      'memberlist_compressed_messages',
      'memberlist_user_messages_received',
    ]);
  });
});
