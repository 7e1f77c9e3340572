/**
 * Members' metric snapshots as OpenTelemetry observable instruments: counters as
 * ObservableCounters (cumulative totals), gauges as ObservableGauges, one batch callback per member
 * that takes one snapshot per collection. Only the OpenTelemetry API is used, so whatever SDK and
 * exporter the application set up (OTLP, Prometheus, console) receives them.
 */
import { metrics, type Attributes, type BatchObservableCallback, type Meter, type Observable } from '@opentelemetry/api';
import type { MetricFamily, MetricsProvider } from '@swim/runtime';

/** Options of {@link openTelemetryMetrics}; checked by {@link validateOpenTelemetryMetricsOptions}. */
export interface OpenTelemetryMetricsOptions {
  /** Where instruments are created; default the global provider's meter `@swim/adapter-opentelemetry`. */
  readonly meter?: Meter;
  /** Put before every family name; default `swim.` (`swim.sent_bytes`, unit `By`). */
  readonly prefix?: string;
  /** Attributes on every measurement of this member, e.g. `{ 'swim.member': 'n1' }` when one process runs several. */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** One member observed through OpenTelemetry, as returned by {@link openTelemetryMetrics}. */
export interface OpenTelemetryMetrics {
  /** Collections that left a member out because its `metrics()` threw. */
  readonly failedCollections: number;
  /** Stop observing this member (its instruments stay with the meter, as OpenTelemetry keeps them). */
  remove(): void;
}

/** OpenTelemetry instrument names: a letter, then letters, digits, `_`, `.`, `-` and `/`, at most 255. */
const INSTRUMENT_NAME = /^[A-Za-z][A-Za-z0-9_.\-/]{0,254}$/;

/** The instrument name of a family: `swim.members`, `swim.sent_bytes`. */
export function instrumentName(family: Pick<MetricFamily, 'name'>, prefix = 'swim.'): string {
  return `${prefix}${family.name}`;
}

/** Every problem with the options, empty when they are valid. */
export function validateOpenTelemetryMetricsOptions(options: OpenTelemetryMetricsOptions): string[] {
  const problems: string[] = [];
  const prefix = options.prefix ?? 'swim.';
  if (typeof prefix !== 'string' || (prefix !== '' && !INSTRUMENT_NAME.test(prefix))) problems.push(`prefix ${JSON.stringify(prefix)} is not the start of an instrument name (a letter, then letters, digits, _ . - /)`);
  if (options.meter !== undefined && typeof options.meter?.createObservableCounter !== 'function') problems.push('meter is not an OpenTelemetry Meter');
  for (const [name, value] of Object.entries(options.attributes ?? {})) {
    if (name.length === 0) problems.push('an attribute name is empty');
    if (typeof value !== 'string') problems.push(`attribute ${name}: value must be a string`);
  }
  return problems;
}

/**
 * Observe `member`'s metrics (`member.metrics()`) with OpenTelemetry instruments. Invalid options
 * throw a `RangeError` listing every problem. Families that first appear after this call (a source
 * added later) are observed from the collection after the one that saw them.
 */
export function openTelemetryMetrics(member: MetricsProvider, options: OpenTelemetryMetricsOptions = {}): OpenTelemetryMetrics {
  const problems = validateOpenTelemetryMetricsOptions(options);
  if (problems.length > 0) throw new RangeError(`invalid OpenTelemetry metrics options: ${problems.join('; ')}`);
  const meter = options.meter ?? metrics.getMeter('@swim/adapter-opentelemetry');
  const prefix = options.prefix ?? 'swim.';
  const constant: Attributes = { ...options.attributes };
  const instruments = new Map<string, { readonly type: MetricFamily['type']; readonly observable: Observable }>();
  let failedCollections = 0;
  let removed = false;
  let pendingFamilies: MetricFamily[] = [];

  const callback: BatchObservableCallback = (result) => {
    let families: readonly MetricFamily[];
    try {
      families = member.metrics().families;
    } catch {
      failedCollections++;
      return;
    }
    for (const family of families) {
      const instrument = instruments.get(family.name);
      if (instrument === undefined) {
        pendingFamilies.push(family);
        continue;
      }
      if (instrument.type !== family.type) continue;
      for (const sample of family.samples) result.observe(instrument.observable, sample.value, { ...sample.labels, ...constant });
    }
    // New instruments join the batch after this collection, not while the SDK runs it.
    if (pendingFamilies.length > 0) queueMicrotask(addPending);
  };

  const create = (families: readonly MetricFamily[]): boolean => {
    let added = false;
    for (const family of families) {
      const name = instrumentName(family, prefix);
      if (instruments.has(family.name) || !INSTRUMENT_NAME.test(name)) continue;
      const descriptor = { description: family.help, unit: family.unit };
      const observable = family.type === 'counter' ? meter.createObservableCounter(name, descriptor) : meter.createObservableGauge(name, descriptor);
      instruments.set(family.name, { type: family.type, observable });
      added = true;
    }
    return added;
  };
  const observables = () => [...instruments.values()].map((i) => i.observable);

  function addPending(): void {
    const families = pendingFamilies;
    pendingFamilies = [];
    if (removed) return;
    const before = observables();
    if (!create(families)) return;
    meter.removeBatchObservableCallback(callback, before);
    meter.addBatchObservableCallback(callback, observables());
  }

  create(member.metrics().families);
  meter.addBatchObservableCallback(callback, observables());
  return {
    get failedCollections() {
      return failedCollections;
    },
    remove() {
      if (removed) return;
      removed = true;
      meter.removeBatchObservableCallback(callback, observables());
    },
  };
}
