/**
 * The UDP transport's counters as metric families for `member.addMetricsSource` (@swim/runtime):
 * datagrams and bytes on the wire (after any encryption), drops by cause, streams and their errors.
 */
import { labelledMetric, singleMetric, type MetricFamily, type MetricsSource } from '@swim/runtime';
import type { UdpCounters } from './counters.js';

/** `member.addMetricsSource(udpTransportMetrics(udp))`: the families read `udp.counters` at each snapshot. */
export function udpTransportMetrics(transport: { readonly counters: Readonly<UdpCounters> }): MetricsSource {
  return (): MetricFamily[] => {
    const c = transport.counters;
    return [
      singleMetric('counter', 'transport_sent_packets', 'UDP datagrams sent.', '{packet}', c.packetsSent),
      singleMetric('counter', 'transport_received_packets', 'UDP datagrams received.', '{packet}', c.packetsReceived),
      singleMetric('counter', 'transport_sent_bytes', 'Bytes of the UDP datagrams sent.', 'By', c.bytesSent),
      singleMetric('counter', 'transport_received_bytes', 'Bytes of the UDP datagrams received.', 'By', c.bytesReceived),
      singleMetric('counter', 'transport_deferred_packets', 'UDP datagrams received while the receive slice was spent, handed on in a later event-loop turn.', '{packet}', c.packetsDeferred),
      labelledMetric('counter', 'transport_dropped_packets', 'Datagrams not sent or not delivered, by cause.', '{packet}', 'cause', c.dropped),
      labelledMetric('counter', 'transport_streams', 'TCP streams: requests this member opened and connections it accepted.', '{stream}', 'direction', {
        outgoing: c.streamsOpened,
        incoming: c.streamsAccepted,
      }),
      labelledMetric('counter', 'transport_stream_errors', 'TCP streams that failed or were closed early, by reason.', '{stream}', 'reason', {
        request_failed: c.streamsFailed,
        malformed: c.streamsMalformed,
        over_budget: c.streamsOverBudget + c.streamsOverSourceBudget,
        timed_out: c.streamsTimedOut,
        rejected: c.streamsRejected,
        handler_error: c.streamHandlerErrors,
      }),
    ];
  };
}
