/**
 * Metrics: what a member counts and measures, as one typed snapshot that exporters translate
 * (@swim/adapter-prometheus, @swim/adapter-opentelemetry). The member builds its own families from
 * the core's counters, its membership table and the effects it carries out; sources add others (a
 * transport's drops, an encryption wrapper's decrypt failures). Browser-safe and allocation-light:
 * the member only increments a few numbers per effect, and the snapshot is built when asked for.
 */
import type { Counters, Effect, MemberCounts, MemberState } from '@swim/core';

/** `counter`: a total that only grows while the process runs; `gauge`: a current value that may go up or down. */
export type MetricType = 'counter' | 'gauge';

/** One series of a {@link MetricFamily}: its label values and its current value. */
export interface MetricSample {
  /** One value per name in the family's `labelNames` (and no other). */
  readonly labels: Readonly<Record<string, string>>;
  /** The series' value, in the family's `unit`; a counter's is finite and never negative. */
  readonly value: number;
}

/**
 * One metric with its series. `name` is snake_case with its unit and without prefix or `_total`
 * (`sent_bytes`): the Prometheus adapter exposes `swim_sent_bytes_total`, the OpenTelemetry one an
 * instrument `swim.sent_bytes` with `unit` `By`.
 */
export interface MetricFamily {
  /** Matches `[a-zA-Z_][a-zA-Z0-9_]*` and does not end in `_total` (exporters add it to counters); unique in a snapshot. */
  readonly name: string;
  /** `counter`: only ever grows while the process runs; `gauge`: a current value. */
  readonly type: MetricType;
  /** One sentence for humans: Prometheus `# HELP`, the OpenTelemetry instrument's description. */
  readonly help: string;
  /** UCUM unit, as OpenTelemetry wants it: `By`, `1`, or a count annotation such as `{packet}`. */
  readonly unit: string;
  /** The label names every sample has, no other and none twice; none may start with `__`. Empty for a single series. */
  readonly labelNames: readonly string[];
  /** The series, at most one per combination of label values. */
  readonly samples: readonly MetricSample[];
}

/** Every family a provider reports at one moment, built by `Member.metrics()`. */
export interface MetricsSnapshot {
  /** Families with unique names; a member lists its own, then those of added sources, then `metrics_dropped_families`. */
  readonly families: readonly MetricFamily[];
}

/** What exporters read: a `Member`, or anything else that builds snapshots. */
export interface MetricsProvider {
  /** A fresh snapshot; exporters call it at each scrape or collection. */
  metrics(): MetricsSnapshot;
}

/**
 * Families added to every snapshot of a member (`member.addMetricsSource`). Called once per
 * snapshot; what it throws, and families that are malformed or reuse a name, are counted in
 * `metrics_dropped_families_total` and left out.
 */
export type MetricsSource = () => readonly MetricFamily[];

/** A family of one unlabelled series. */
export function singleMetric(type: MetricType, name: string, help: string, unit: string, value: number): MetricFamily {
  return { name, type, help, unit, labelNames: [], samples: [{ labels: {}, value }] };
}

/** A family with one label: a series per entry of `values`, in its order. */
export function labelledMetric(
  type: MetricType,
  name: string,
  help: string,
  unit: string,
  label: string,
  values: Readonly<Record<string, number>>,
): MetricFamily {
  return { name, type, help, unit, labelNames: [label], samples: Object.entries(values).map(([value, count]) => ({ labels: { [label]: value }, value: count })) };
}

/** Names exporters accept as they are: Prometheus's (less the colon reserved for recording rules). */
const METRIC_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Prometheus reserves label names starting with `__`. */
const LABEL_NAME = /^(?!__)[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Why a family cannot be exported as it is, or undefined when it can. */
export function metricFamilyProblem(family: MetricFamily): string | undefined {
  if (typeof family.name !== 'string' || !METRIC_NAME.test(family.name)) return `bad metric name ${JSON.stringify(family.name)}`;
  if (family.type !== 'counter' && family.type !== 'gauge') return `${family.name}: type must be counter or gauge`;
  if (family.name.endsWith('_total')) return `${family.name}: the exporters add _total to counters`;
  const labels = new Set(family.labelNames);
  if (labels.size !== family.labelNames.length) return `${family.name}: a label name is repeated`;
  for (const label of labels) if (!LABEL_NAME.test(label)) return `${family.name}: bad label name ${JSON.stringify(label)}`;
  const seen = new Set<string>();
  for (const sample of family.samples) {
    const names = Object.keys(sample.labels);
    if (names.length !== labels.size || names.some((n) => !labels.has(n) || typeof sample.labels[n] !== 'string')) {
      return `${family.name}: a sample's labels are not exactly ${family.labelNames.join(', ') || 'none'}`;
    }
    if (typeof sample.value !== 'number' || Number.isNaN(sample.value) || (family.type === 'counter' && !(sample.value >= 0 && sample.value < Infinity))) {
      return `${family.name}: bad value ${String(sample.value)}`;
    }
    const key = family.labelNames.map((n) => sample.labels[n]).join('\u0000');
    if (seen.has(key)) return `${family.name}: two samples with the same labels`;
    seen.add(key);
  }
  return undefined;
}

const DROPPED_FAMILIES = 'metrics_dropped_families';

/** The order the members gauge lists states in (every state always present, 0 when none). */
const STATES: readonly MemberState[] = ['alive', 'suspect', 'dead', 'left'];

/** What the member hands the recorder for a snapshot (read, never kept). */
export interface MemberMetricsInputs {
  readonly counters: Readonly<Counters>;
  readonly memberCounts: MemberCounts;
  readonly healthScore: number;
  readonly incarnation: number;
  /** The protocol version the member writes; undefined for a codec of another wire. */
  readonly protocolVersion: number | undefined;
  /** The `error` of the member's own coordinate; undefined when coordinates are off. */
  readonly coordinateError?: number | undefined;
  readonly queuedBroadcasts: number;
  readonly containedErrors: number;
}

/**
 * Counts what the core reports only as effects (probe outcomes, membership events with their
 * cause), and builds a member's snapshot. One per member.
 */
export class MemberMetrics {
  readonly #probes = { direct_ack: 0, indirect_ack: 0, stream_ack: 0, failed: 0 };
  readonly #events = { join: 0, update: 0, suspect: 0, alive: 0, dead: 0, left: 0 };
  readonly #deaths = { timeout: 0, gossip: 0 };
  #conflicts = 0;
  readonly #sources = new Set<{ readonly collect: MetricsSource }>();
  #droppedFamilies = 0;

  /** Called for every effect the member carries out; must not throw. */
  observe(effect: Effect): void {
    switch (effect.type) {
      case 'probe':
        // memberlist probeNode: acked directly, through ping-req helpers, over the fallback stream, or not at all.
        if (!effect.ok) this.#probes.failed++;
        else if (effect.via === 'indirect') this.#probes.indirect_ack++;
        else if (effect.via === 'stream') this.#probes.stream_ack++;
        else this.#probes.direct_ack++;
        return;
      case 'member':
        this.#events[effect.event]++;
        if (effect.event === 'dead') this.#deaths[effect.cause?.kind ?? 'gossip']++;
        return;
      case 'conflict':
        this.#conflicts++;
        return;
      default:
        return;
    }
  }

  /** Include `collect`'s families in every snapshot until the returned function is called. */
  addSource(collect: MetricsSource): () => void {
    const entry = { collect };
    this.#sources.add(entry);
    return () => {
      this.#sources.delete(entry);
    };
  }

  snapshot(inputs: MemberMetricsInputs): MetricsSnapshot {
    const families = this.#own(inputs);
    const names = new Set([...families.map((f) => f.name), DROPPED_FAMILIES]);
    for (const { collect } of this.#sources) {
      let collected: readonly MetricFamily[];
      try {
        collected = collect();
        if (!Array.isArray(collected)) throw new TypeError('a metrics source returned no array');
      } catch {
        this.#droppedFamilies++;
        continue;
      }
      for (const family of collected) {
        if (typeof family !== 'object' || family === null || metricFamilyProblem(family) !== undefined || names.has(family.name)) {
          this.#droppedFamilies++;
          continue;
        }
        names.add(family.name);
        families.push(family);
      }
    }
    families.push(
      singleMetric('counter', DROPPED_FAMILIES, 'Families of added metrics sources left out of snapshots: malformed, a name already used, or the source threw.', '{family}', this.#droppedFamilies),
    );
    return { families };
  }

  #own(inputs: MemberMetricsInputs): MetricFamily[] {
    const c = inputs.counters;
    const counter = (name: string, help: string, unit: string, value: number) => singleMetric('counter', name, help, unit, value);
    const gauge = (name: string, help: string, unit: string, value: number) => singleMetric('gauge', name, help, unit, value);
    return [
      labelledMetric('gauge', 'members', 'Members held, this one included, by state (dead and left ones until reaped).', '{member}', 'state', Object.fromEntries(STATES.map((s) => [s, inputs.memberCounts[s]]))),
      gauge('health_score', 'Local health score (Lifeguard awareness; 0 is healthy, higher scales probe intervals and timeouts).', '1', inputs.healthScore),
      gauge('incarnation', "This member's incarnation number.", '1', inputs.incarnation),
      ...(inputs.protocolVersion === undefined
        ? []
        : [gauge('protocol_version', "The version of @swim's wire protocol this member writes: the newest every live member it knows speaks (docs/compatibility.md).", '1', inputs.protocolVersion)]),
      ...(inputs.coordinateError === undefined
        ? []
        : [
            gauge('coordinate_error', "How unsure this member is of its Vivaldi network coordinate (Serf's Error): 1.5 before any sample, toward 0 as its RTT predictions come true; about their relative error.", '1', inputs.coordinateError),
            counter('coordinate_updates', 'Direct acks whose coordinate updated this member\'s (Serf ping delegate).', '{sample}', c.coordinateUpdates),
            counter('coordinates_rejected', 'Direct acks whose coordinate was refused: NaN or infinite, implausible, of another dimensionality, unreadable, or an RTT beyond 10 s.', '{sample}', c.coordinatesRejected),
            counter('coordinate_resets', 'Times this member\'s coordinate went NaN or infinite and started over (Serf coordinate_resets).', '{reset}', c.coordinateResets),
          ]),
      gauge('broadcast_queue_messages', 'Updates waiting in the gossip queue to be piggybacked (memberlist.queue.broadcasts).', '{message}', inputs.queuedBroadcasts),
      counter('sent_packets', 'Packets the member sent.', '{packet}', c.packetsOut),
      counter('received_packets', 'Packets the member received and decoded.', '{packet}', c.packetsIn),
      counter('sent_bytes', 'Bytes of the packets the member sent (before any encryption).', 'By', c.bytesOut),
      counter('received_bytes', 'Bytes of the packets and streams the member received (after any decryption).', 'By', c.bytesIn),
      counter('sent_messages', 'Protocol messages the member sent, piggybacked ones included.', '{message}', c.messagesOut),
      counter('received_messages', 'Protocol messages the member received.', '{message}', c.messagesIn),
      labelledMetric('counter', 'probes', 'Probes finished, by result: acked directly, through ping-req helpers, over the fallback stream, or failed.', '{probe}', 'result', this.#probes),
      counter('indirect_probes', 'Probes that asked helpers (ping-req) after the direct ack did not come.', '{probe}', c.indirectProbes),
      counter('degraded_probes', 'Probes run with an interval scaled up by the health score.', '{probe}', c.degradedProbes),
      counter('late_ticks', 'Calls that came far past the deadline the member asked for (its timers ran late: a hidden tab, a stalled process); nobody is judged on them and the health score rises.', '{tick}', c.lateTicks),
      counter('nacks_received', 'Nacks from ping-req helpers (Lifeguard).', '{message}', c.nacksReceived),
      counter('suspicions_raised', 'Suspicions this member raised from its own failed probes.', '{suspicion}', c.suspicionsRaised),
      counter('suspicions_refuted', 'Suspicions and death claims about this member that it refuted with a higher incarnation.', '{suspicion}', c.refutations),
      counter('verdict_checks', 'Suspects asked once more, one probe timeout before this member would declare them dead (direct refutation).', '{check}', c.verdictChecks),
      counter('verdict_checks_acked', 'Verdict checks the suspect acked without a refutation reaching us: the verdict waited and asked again.', '{check}', c.verdictChecksAcked),
      labelledMetric('counter', 'dead_verdicts', 'Members this member marked dead, by cause: its own suspicion timeout, or a peer\'s dead message or push-pull.', '{member}', 'cause', this.#deaths),
      labelledMetric('counter', 'member_events', 'Membership changes reported, by event.', '{event}', 'event', this.#events),
      counter('push_pulls', 'Push-pull state exchanges completed, as initiator or responder.', '{exchange}', c.pushPulls),
      counter('push_pulls_refused', 'Push-pulls refused: too many entries, or too many merging at once.', '{exchange}', c.pushPullsRefused),
      counter('reconnect_attempts', 'Push-pulls started with a failed member to heal a partition.', '{exchange}', c.reconnectAttempts),
      counter('forced_leaves', 'Failed members this member marked left by a force-leave (Serf RemoveFailedNode).', '{member}', c.forceLeaves),
      counter('declarer_push_pulls', 'Push-pulls started with the member that declared this member dead, as it refuted the verdict.', '{exchange}', c.declarerPushPulls),
      counter('move_push_pulls', 'Push-pulls started to announce this member\'s move to a new address, one after another until one reached a live member.', '{exchange}', c.movePushPulls),
      counter('missed_moves_corrected', 'Stale accusations about a moved member answered to their sender with the move it missed.', '{message}', c.missedMovesCorrected),
      counter('decode_errors', 'Packets and streams dropped because they could not be decoded.', '{message}', c.decodeErrors),
      counter('unknown_messages', 'Messages of a type this version does not know (from a later version), skipped; the rest of their packet was handled.', '{message}', c.unknownMessages),
      labelledMetric('counter', 'refused_updates', 'Membership updates dropped by the core, by reason.', '{message}', 'reason', {
        oversized_meta: c.oversizedMeta,
        implausible_incarnation: c.implausibleUpdates,
        members_full: c.membersRefused,
        not_admitted: c.newMembersNotAdmitted,
        stale_after_reap: c.reapedAlivesRefused,
      }),
      counter('name_conflicts', 'Our name or a member\'s claimed from another address (a refused join included).', '{event}', this.#conflicts),
      counter('contained_errors', 'Exceptions the member caught and survived (core, listeners, transport).', '{error}', inputs.containedErrors),
    ];
  }
}
