/**
 * @swim/adapter-prometheus: a member's metrics (`member.metrics()` of @swim/runtime) as Prometheus
 * metrics through prom-client, named `swim_*` after Prometheus's conventions, and a small server for
 * GET /metrics. Node only (prom-client).
 *
 * @packageDocumentation
 */
export { prometheusMetrics, prometheusName, validatePrometheusMetricsOptions, type AnyRegistry, type PrometheusMetrics, type PrometheusMetricsOptions } from './exporter.js';
export { serveMetrics, validateMetricsServerOptions, type MetricsServer, type MetricsServerCounters, type MetricsServerOptions } from './server.js';
