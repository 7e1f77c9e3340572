/**
 * Members' metric snapshots as prom-client metrics: one Counter or Gauge per family, filled from a
 * fresh snapshot when the registry is read. prom-client writes the text exposition, so the format
 * (escaping, HELP/TYPE lines, OpenMetrics when the registry asks for it) is its well-tested code.
 */
import { Counter, Gauge, Registry, type RegistryContentType } from 'prom-client';
import type { MetricFamily, MetricsProvider, MetricsSnapshot } from '@swim/runtime';

/** Options of {@link prometheusMetrics}; checked by {@link validatePrometheusMetricsOptions}. */
export interface PrometheusMetricsOptions {
  /** Where the metrics are registered; default a new `Registry`. Several members may share one. */
  readonly registry?: AnyRegistry;
  /** Put before every family name; default `swim_`. Counters also get `_total`. */
  readonly prefix?: string;
  /**
   * Labels on every series of this member, e.g. `{ member: 'n1' }` when one process runs several
   * members into one registry (each then needs labels that tell it apart, with the same names).
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/** One member exported to a registry, as returned by {@link prometheusMetrics}. */
export interface PrometheusMetrics {
  /** The registry the member's metrics are in (the one given, or the one created); read it or serve it with {@link serveMetrics}. */
  readonly registry: AnyRegistry;
  /**
   * Left out since the start: samples whose labels clash with the constant labels or whose family
   * changed type or labels after it was registered, and one per scrape where `metrics()` threw.
   */
  readonly skippedSamples: number;
  /** Stop exporting this member; the registry forgets the metrics once no member uses them. */
  remove(): void;
}

/** A registry writing either format (Prometheus text or OpenMetrics). */
export type AnyRegistry = Registry<RegistryContentType>;

const METRIC_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const LABEL_NAME = /^(?!__)[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The exposed name of a family: `swim_members`, `swim_sent_bytes_total`. */
export function prometheusName(family: Pick<MetricFamily, 'name' | 'type'>, prefix = 'swim_'): string {
  return `${prefix}${family.name}${family.type === 'counter' ? '_total' : ''}`;
}

/** Every problem with the options, empty when they are valid. */
export function validatePrometheusMetricsOptions(options: PrometheusMetricsOptions): string[] {
  const problems: string[] = [];
  const prefix = options.prefix ?? 'swim_';
  if (typeof prefix !== 'string' || (prefix !== '' && !METRIC_NAME.test(prefix))) problems.push(`prefix ${JSON.stringify(prefix)} is not the start of a Prometheus metric name ([a-zA-Z_][a-zA-Z0-9_]*)`);
  if (options.registry !== undefined && !(options.registry instanceof Registry)) problems.push("registry is not a prom-client Registry (two copies of prom-client installed?)");
  for (const [name, value] of Object.entries(options.labels ?? {})) {
    if (!LABEL_NAME.test(name)) problems.push(`label name ${JSON.stringify(name)} is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`);
    if (typeof value !== 'string') problems.push(`label ${name}: value must be a string`);
  }
  return problems;
}

/**
 * Export `member`'s metrics (`member.metrics()`) through prom-client: read them with
 * `registry.metrics()`, or serve them with `serveMetrics`. Invalid options throw a `RangeError`
 * listing every problem.
 */
export function prometheusMetrics(member: MetricsProvider, options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const problems = validatePrometheusMetricsOptions(options);
  const registry: AnyRegistry = options.registry ?? new Registry();
  const prefix = options.prefix ?? 'swim_';
  const exporter = exporterOf(registry, prefix);
  if (exporter !== undefined) problems.push(...exporter.admissionProblems(options.labels ?? {}));
  if (problems.length > 0) throw new RangeError(`invalid Prometheus metrics options: ${problems.join('; ')}`);
  return (exporter ?? createExporter(registry, prefix)).add(member, options.labels ?? {});
}

/** One exporter per registry and prefix, shared by the members registered there. */
const exporters = new WeakMap<AnyRegistry, Map<string, RegistryExporter>>();

function exporterOf(registry: AnyRegistry, prefix: string): RegistryExporter | undefined {
  return exporters.get(registry)?.get(prefix);
}

function createExporter(registry: AnyRegistry, prefix: string): RegistryExporter {
  const exporter = new RegistryExporter(registry, prefix, () => exporters.get(registry)?.delete(prefix));
  let byPrefix = exporters.get(registry);
  if (byPrefix === undefined) exporters.set(registry, (byPrefix = new Map()));
  byPrefix.set(prefix, exporter);
  return exporter;
}

interface Source {
  readonly member: MetricsProvider;
  readonly labels: Readonly<Record<string, string>>;
  skipped: number;
}

type PromMetric = Counter<string> | Gauge<string>;

class RegistryExporter {
  readonly #sources = new Set<Source>();
  /** Registered metrics by family name, with the family's type and label names when registered. */
  readonly #metrics = new Map<string, { readonly name: string; readonly metric: PromMetric; readonly family: MetricFamily }>();
  /** Snapshots for one read of the registry: prom-client calls every metric's collect() in one synchronous pass. */
  #snapshots: Map<Source, MetricsSnapshot> | undefined;

  constructor(
    readonly registry: AnyRegistry,
    readonly prefix: string,
    readonly onEmpty: () => void,
  ) {}

  /** Problems with adding a member with these constant labels next to those already here. */
  admissionProblems(labels: Readonly<Record<string, string>>): string[] {
    const first = this.#sources.values().next().value;
    if (first === undefined) return [];
    const want = Object.keys(first.labels).sort().join(',');
    const got = Object.keys(labels).sort().join(',');
    if (want !== got) return [`members in one registry need the same label names (this registry's have ${want || 'none'}, got ${got || 'none'})`];
    for (const other of this.#sources) {
      if (Object.keys(labels).every((k) => other.labels[k] === labels[k])) return ['a member with the same labels is already exported to this registry: give each member labels that tell it apart'];
    }
    return [];
  }

  add(member: MetricsProvider, labels: Readonly<Record<string, string>>): PrometheusMetrics {
    const source: Source = { member, labels: { ...labels }, skipped: 0 };
    this.#sources.add(source);
    // Register what the member has now; families that appear later are registered at the next read.
    this.#register(member.metrics());
    const exporter = this;
    return {
      registry: this.registry,
      get skippedSamples() {
        return source.skipped;
      },
      remove() {
        if (!exporter.#sources.delete(source) || exporter.#sources.size > 0) return;
        for (const { name } of exporter.#metrics.values()) exporter.registry.removeSingleMetric(name);
        exporter.#metrics.clear();
        exporter.onEmpty();
      },
    };
  }

  #register(snapshot: MetricsSnapshot): void {
    const constant = Object.keys(this.#sources.values().next().value?.labels ?? {});
    for (const family of snapshot.families) {
      if (this.#metrics.has(family.name)) continue;
      const name = prometheusName(family, this.prefix);
      // Another library's metric under this name: leave it alone, skip ours.
      if (this.registry.getSingleMetric(name) !== undefined) continue;
      const exporter = this;
      const config = {
        name,
        help: family.help,
        labelNames: [...constant, ...family.labelNames.filter((l) => !constant.includes(l))],
        registers: [this.registry],
        collect(this: PromMetric) {
          exporter.#fill(this, family.name);
        },
      };
      const metric: PromMetric = family.type === 'counter' ? new Counter(config) : new Gauge(config);
      this.#metrics.set(family.name, { name, metric, family });
    }
  }

  /** Set `metric` from this read's snapshots of every member. */
  #fill(metric: PromMetric, familyName: string): void {
    const registered = this.#metrics.get(familyName)!.family;
    const snapshots = this.#readSnapshots();
    metric.reset();
    for (const [source, snapshot] of snapshots) {
      const family = snapshot.families.find((f) => f.name === familyName);
      if (family === undefined) continue;
      if (family.type !== registered.type || family.labelNames.join(',') !== registered.labelNames.join(',')) {
        source.skipped += family.samples.length;
        continue;
      }
      for (const sample of family.samples) {
        if (Object.keys(sample.labels).some((l) => l in source.labels)) {
          source.skipped++;
          continue;
        }
        const labels = { ...sample.labels, ...source.labels };
        if (metric instanceof Counter) metric.inc(labels, sample.value);
        else metric.set(labels, sample.value);
      }
    }
  }

  #readSnapshots(): Map<Source, MetricsSnapshot> {
    if (this.#snapshots !== undefined) return this.#snapshots;
    const snapshots = new Map<Source, MetricsSnapshot>();
    for (const source of this.#sources) {
      try {
        snapshots.set(source, source.member.metrics());
      } catch {
        // A provider that throws is left out of this read rather than failing the whole scrape.
        source.skipped++;
      }
    }
    this.#snapshots = snapshots;
    queueMicrotask(() => {
      this.#snapshots = undefined;
    });
    for (const snapshot of snapshots.values()) this.#register(snapshot);
    return snapshots;
  }
}
