/**
 * The memberlist codec's and the Serf layer's counters as metric families for
 * `member.addMetricsSource` (@swim/runtime): what the wire refused, compression, Serf's messages.
 */
import { labelledMetric, singleMetric, type MetricFamily, type MetricsSource } from '@swim/runtime';
import type { MemberlistWireCounters } from './codec/counters.js';
import type { SerfCounters } from './serf/serf-layer.js';

/** `member.addMetricsSource(memberlistMetrics(codec, serf))`: the families read the counters at each snapshot. */
export function memberlistMetrics(
  codec: { readonly counters: Readonly<MemberlistWireCounters> },
  serf?: { readonly counters: Readonly<SerfCounters> },
): MetricsSource {
  return (): MetricFamily[] => {
    const c = codec.counters;
    const families = [
      labelledMetric('counter', 'memberlist_refused_parts', "Parts of memberlist's wire refused or skipped before the core, by reason.", '{message}', 'reason', {
        crc: c.crcFailures,
        inflate: c.inflateRefused,
        unknown_type: c.unknownParts,
        truncated: c.truncatedParts,
        malformed: c.malformedParts,
        version: c.versionRefused,
        incompatible_push_pull: c.pushPullsIncompatible,
        label: c.labelled,
        too_deep: c.tooDeep,
      }),
      labelledMetric('counter', 'memberlist_compressed_messages', 'LZW-compressed messages, by direction.', '{message}', 'direction', {
        received: c.compressedIn,
        sent: c.compressedOut,
      }),
      singleMetric('counter', 'memberlist_user_messages_received', "memberlist user messages received (Serf's among them).", '{message}', c.userMessagesIn),
    ];
    if (serf !== undefined) {
      const s = serf.counters;
      families.push(
        labelledMetric('counter', 'serf_messages_received', "Serf's messages received, by kind (duplicate: a copy of one already handled; refuted_leave_intent: a leave of ours we did not send, refuted).", '{message}', 'kind', {
          leave_intent: s.leaveIntents,
          refuted_leave_intent: s.refutedLeaveIntents,
          join_intent: s.joinIntents,
          user_event: s.userEvents,
          duplicate: s.duplicates,
          query: s.queries,
          internal_query: s.internalQueries,
          other: s.other,
        }),
      );
    }
    return families;
  };
}
