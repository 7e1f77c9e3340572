/**
 * @swim/adapter-opentelemetry: a member's metrics (`member.metrics()` of @swim/runtime) as
 * OpenTelemetry observable instruments named `swim.*`, through the OpenTelemetry metrics API, so
 * any SDK exporter (OTLP, Prometheus, console) carries them. Browser-safe: no Node built-ins.
 *
 * @packageDocumentation
 */
export {
  instrumentName,
  openTelemetryMetrics,
  validateOpenTelemetryMetricsOptions,
  type OpenTelemetryMetrics,
  type OpenTelemetryMetricsOptions,
} from './exporter.js';
