/**
 * An encryption wrapper's counters as metric families for `member.addMetricsSource`
 * (@swim/runtime): decrypt failures, label mismatches, plaintext refused or accepted, overload drops.
 */
import { labelledMetric, singleMetric, type MetricFamily, type MetricsSource } from '@swim/runtime';
import type { SecureTransportCounters } from './counters.js';

/** `member.addMetricsSource(secureTransportMetrics(secure))`: the families read `secure.counters` at each snapshot. */
export function secureTransportMetrics(transport: { readonly counters: Readonly<SecureTransportCounters> }): MetricsSource {
  return (): MetricFamily[] => {
    const c = transport.counters;
    return [
      singleMetric('counter', 'decrypt_errors', 'Packets and streams no installed key opened, or malformed envelopes (dropped).', '{message}', c.decryptFailures),
      singleMetric('counter', 'label_mismatches', 'Packets and streams with another cluster label, or a missing or bad one (dropped).', '{message}', c.labelMismatches),
      labelledMetric('counter', 'plaintext_received', 'Unencrypted packets and streams received: refused (verify-incoming) or accepted.', '{message}', 'action', {
        refused: c.plaintextRefused,
        accepted: c.plaintextAccepted,
      }),
      labelledMetric('counter', 'encrypted_messages', 'Packets and streams sealed and opened.', '{message}', 'operation', {
        encrypt: c.packetsEncrypted + c.streamsEncrypted,
        decrypt: c.packetsDecrypted + c.streamsDecrypted,
      }),
      singleMetric('counter', 'encryption_overload_drops', 'Input dropped because maxInFlight crypto operations were pending.', '{message}', c.inFlightDropped),
      singleMetric('counter', 'encryption_errors', 'Exceptions caught inside the encryption wrapper.', '{error}', c.errors),
    ];
  };
}
