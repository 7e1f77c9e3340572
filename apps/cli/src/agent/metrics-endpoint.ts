/**
 * `swim agent --metrics HOST:PORT`: Prometheus metrics at http://HOST:PORT/metrics on a server of
 * their own (not the control endpoint: read-only, no token, what a Prometheus job scrapes). The
 * member's swim_* families, the UDP transport's and the encryption wrapper's, and Node's process_*.
 */
import { prometheusMetrics, serveMetrics, type MetricsServer } from '@swim/adapter-prometheus';
import { secureTransportMetrics, type SecureTransport } from '@swim/encryption';
import type { Member } from '@swim/runtime';
import { udpTransportMetrics, type HostPort, type UdpTransport } from '@swim/transport-udp';
import { collectDefaultMetrics, Registry } from 'prom-client';

export interface MetricsEndpointOptions {
  readonly member: Member;
  readonly udp: UdpTransport;
  readonly secure: SecureTransport | undefined;
  readonly address: HostPort;
}

export async function startMetricsEndpoint(options: MetricsEndpointOptions): Promise<MetricsServer> {
  const { member, udp, secure, address } = options;
  const removeSources = [member.addMetricsSource(udpTransportMetrics(udp))];
  if (secure !== undefined) removeSources.push(member.addMetricsSource(secureTransportMetrics(secure)));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's nodejs_active_{handles,requests,resources}_total are gauges with a counter's
  // suffix, which `promtool check metrics` rejects: left out. (Its typings say the type is an enum;
  // at run time it is the exposition's word.)
  for (const metric of registry.getMetricsAsArray()) {
    if (String(metric.type) !== 'counter' && metric.name.endsWith('_total')) registry.removeSingleMetric(metric.name);
  }
  prometheusMetrics(member, { registry });
  try {
    return await serveMetrics({ host: address.host, port: address.port, registry });
  } catch (error) {
    for (const remove of removeSources) remove();
    throw error;
  }
}
