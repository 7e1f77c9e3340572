import type { HealthScaling, PenaltyOrder, ProbeTimeoutMode, SwimConfig } from './config.js';
import { presets, type PresetName } from './presets.js';
import { ALIVE_PACKET_OVERHEAD_BYTES, MIN_PACKET_BYTES } from '../codec/wire-schema.js';

/**
 * Thrown by {@link resolveConfig} (and `resolveVivaldiConfig`); `problems` holds every problem
 * found, in one pass.
 */
export class ConfigError extends Error {
  /** Every problem found, one sentence each; frozen. */
  readonly problems: readonly string[];

  /** @param subject what was invalid, for the message: 'SWIM config' unless told. */
  constructor(problems: readonly string[], subject = 'SWIM config') {
    const n = problems.length;
    super(`Invalid ${subject} (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

/** A field's constraint. The rule helpers below are shared with coordinates/vivaldi-config.ts. */
export interface NumberRule {
  readonly kind: 'number';
  readonly integer?: true;
  readonly min?: number;
  /** The minimum itself is not allowed. */
  readonly above?: true;
  readonly max?: number;
  readonly why?: string;
}
interface EnumRule {
  readonly kind: 'enum';
  readonly values: readonly string[];
}
interface BooleanRule {
  readonly kind: 'boolean';
}
export type Rule = NumberRule | EnumRule | BooleanRule;

const HEALTH_SCALINGS: readonly HealthScaling[] = ['off', 'at-creation', 'at-expiry'];
const PENALTY_ORDERS: readonly PenaltyOrder[] = ['before-suspicion', 'after-suspicion'];
const PRESET_NAMES: readonly PresetName[] = ['lan', 'wan', 'local'];
const PROBE_TIMEOUT_MODES: readonly ProbeTimeoutMode[] = ['fixed', 'adaptive'];
const REFUTATION_QUEUE_KEYS: readonly SwimConfig['refutationQueueKey'][] = ['name', 'address'];

/** Largest UDP payload over IPv4: 65535 − 8 (UDP header) − 20 (IP header). */
const MAX_UDP_PAYLOAD = 65_507;

/** One rule per field; the mapped type makes the compiler insist every field has one. */
const RULES: { readonly [K in keyof SwimConfig]-?: Rule } = {
  probeIntervalMs: { kind: 'number', min: 0, above: true },
  probeTimeoutMs: { kind: 'number', min: 0, above: true }, // and < probeIntervalMs, below
  probeTimeoutMode: { kind: 'enum', values: PROBE_TIMEOUT_MODES },
  // The adaptive fields are checked in every mode; how they relate to each other and to the probe
  // interval only in adaptive mode (below), so that a fixed-mode config never fails on them.
  adaptiveTimeoutFloorMs: { kind: 'number', min: 0, above: true },
  adaptiveTimeoutCeilingMs: { kind: 'number', min: 0, above: true },
  adaptiveTimeoutPhi: {
    kind: 'number',
    min: 1,
    max: 20,
    why: 'phi = -log10 P(RTT > wait) under a normal model of the RTTs: 1 waits for about the 90th percentile, 4 for mean + 3.7 standard deviations',
  },
  adaptiveTimeoutWindow: { kind: 'number', integer: true, min: 2, max: 1024, why: 'RTTs kept per member' },
  adaptiveTimeoutMinSamples: { kind: 'number', integer: true, min: 1 },
  adaptiveTimeoutMinStdDevMs: { kind: 'number', min: 0 },
  indirectChecks: { kind: 'number', integer: true, min: 0 },
  nackTimeoutRatio: {
    kind: 'number',
    min: 0,
    above: true,
    max: 1,
    why: 'a helper must nack before the prober stops waiting; 0.8 is Lifeguard §IV.A, 1 is memberlist',
  },
  fallbackStreamPing: { kind: 'boolean' },
  requestNacks: { kind: 'boolean' },
  buddySystem: { kind: 'boolean' },
  directRefutation: { kind: 'boolean' },
  answerStaleAlive: { kind: 'boolean' },
  regossipStaleAccusation: { kind: 'boolean' },
  relayUnknownAccusations: { kind: 'boolean' },
  answerAccusedPingers: { kind: 'boolean' },
  coordinates: { kind: 'boolean' },
  suspicionMult: { kind: 'number', integer: true, min: 1 },
  suspicionMaxTimeoutMult: { kind: 'number', integer: true, min: 1, why: 'the suspicion maximum is this times the minimum' },
  overdueGraceMs: { kind: 'number', min: 0 },
  lateTickMs: { kind: 'number', min: 0 },
  healthScaling: { kind: 'enum', values: HEALTH_SCALINGS },
  healthPenaltyOrder: { kind: 'enum', values: PENALTY_ORDERS },
  awarenessMaxMultiplier: { kind: 'number', integer: true, min: 1, why: 'the health score is kept in [0, max - 1]' },
  retransmitMult: { kind: 'number', integer: true, min: 1 },
  gossipIntervalMs: { kind: 'number', min: 0 },
  gossipNodes: { kind: 'number', integer: true, min: 0 },
  gossipToTheDeadMs: { kind: 'number', min: 0 },
  maxPacketBytes: {
    kind: 'number',
    integer: true,
    min: MIN_PACKET_BYTES,
    max: MAX_UDP_PAYLOAD,
    why: `${MAX_UDP_PAYLOAD} is the largest UDP payload; below ${MIN_PACKET_BYTES} a ping-req, a ping with its suspect, or an alive with 512 bytes of meta at the longest name and address, moving from the longest address, does not fit`,
  },
  pushPullIntervalMs: { kind: 'number', min: 0 },
  reconnectIntervalMs: { kind: 'number', min: 0 },
  pushPullWithDeclarer: { kind: 'boolean' },
  reconnectTimeoutMs: { kind: 'number', min: 0 },
  streamTimeoutMs: { kind: 'number', min: 0, above: true },
  deadNodeReclaimMs: { kind: 'number', min: 0 },
  metaMaxBytes: { kind: 'number', integer: true, min: 0 }, // and an alive carrying it must fit maxPacketBytes, below
  refutationQueueKey: { kind: 'enum', values: REFUTATION_QUEUE_KEYS },
  maxMembers: { kind: 'number', integer: true, min: 2, why: 'a table holds ourselves and at least one peer' },
  maxNewMembersPerSource: { kind: 'number', integer: true, min: 1 },
  maxPushPullEntries: { kind: 'number', integer: true, min: 1 },
  maxConcurrentPushPulls: { kind: 'number', integer: true, min: 1 },
  mergeSliceEntries: { kind: 'number', integer: true, min: 1 },
  maxIncarnationJump: { kind: 'number', integer: true, min: 0, why: '0 turns the bound off' },
  leftNameReclaimMs: { kind: 'number', min: 0 },
};

const FIELDS = Object.keys(RULES) as readonly (keyof SwimConfig)[];

/** A short rendering of an offending value for messages. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'function':
      return 'a function';
    case 'symbol':
      return value.toString();
    case 'bigint':
      return `${value}n`;
    default:
      return String(value);
  }
}

function describe(rule: NumberRule): string {
  const noun = rule.integer ? 'an integer' : 'a finite number';
  if (rule.min === undefined) return noun;
  if (rule.max === undefined) return `${noun} ${rule.above ? '>' : '>='} ${rule.min}`;
  return `${noun} in ${rule.above ? '(' : '['}${rule.min}, ${rule.max}]`;
}

export function passes(rule: Rule, value: unknown): boolean {
  switch (rule.kind) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && rule.values.includes(value);
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (!rule.integer || Number.isInteger(value)) &&
        (rule.min === undefined || (rule.above ? value > rule.min : value >= rule.min)) &&
        (rule.max === undefined || value <= rule.max)
      );
  }
}

export function problemOf(field: string, rule: Rule, value: unknown): string {
  switch (rule.kind) {
    case 'boolean':
      return `${field} must be a boolean, got ${show(value)}`;
    case 'enum':
      return `${field} must be one of ${rule.values.map((v) => `'${v}'`).join(', ')}, got ${show(value)}`;
    case 'number':
      return `${field} must be ${describe(rule)}, got ${show(value)}${rule.why ? ` (${rule.why})` : ''}`;
  }
}

/**
 * Checks a whole config and returns every problem at once (one message per field, naming the
 * field, the constraint and the value), or [] if it is valid. Never throws, whatever the input.
 * Fields are checked alone first; a rule that relates two fields is checked only when both pass.
 * memberlist itself validates none of these (memberlist.go newMemberlist).
 */
export function validateConfig(config: SwimConfig): string[] {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return [`config must be an object, got ${show(config)}`];
  }
  const values = config as unknown as Readonly<Record<string, unknown>>;
  const problems: string[] = [];
  const ok = new Set<string>();
  for (const field of FIELDS) {
    const rule = RULES[field];
    if (passes(rule, values[field])) ok.add(field);
    else problems.push(problemOf(field, rule, values[field]));
  }
  if (ok.has('probeTimeoutMs') && ok.has('probeIntervalMs') && config.probeTimeoutMs >= config.probeIntervalMs) {
    // memberlist probeNode: the direct phase waits ProbeTimeout, then the indirect pings and the
    // fallback stream ping run until sent + ProbeInterval (× health). With no time left, every
    // missed ack becomes a suspicion that no helper could have prevented.
    problems.push(
      `probeTimeoutMs must be less than probeIntervalMs (${config.probeIntervalMs}), got ${config.probeTimeoutMs}` +
        ' (a probe waits probeTimeoutMs for a direct ack, then must leave time for indirect probes before the interval ends: memberlist probeNode)',
    );
  }
  if (ok.has('probeTimeoutMode') && config.probeTimeoutMode === 'adaptive') problems.push(...adaptiveProblems(config, ok));
  if (ok.has('metaMaxBytes') && ok.has('maxPacketBytes') && config.metaMaxBytes > config.maxPacketBytes - ALIVE_PACKET_OVERHEAD_BYTES) {
    problems.push(
      `metaMaxBytes must be at most maxPacketBytes - ${ALIVE_PACKET_OVERHEAD_BYTES} = ${config.maxPacketBytes - ALIVE_PACKET_OVERHEAD_BYTES}, got ${config.metaMaxBytes}` +
        ' (an alive message carrying the metadata must fit in one packet)',
    );
  }
  if (ok.has('maxPushPullEntries') && ok.has('maxMembers') && config.maxPushPullEntries < config.maxMembers) {
    problems.push(
      `maxPushPullEntries must be at least maxMembers (${config.maxMembers}), got ${config.maxPushPullEntries}` +
        ' (a push-pull carries the whole table, which may hold maxMembers entries)',
    );
  }
  return problems;
}

/** Cross-field rules of the adaptive probe timeout, for fields that passed on their own. */
function adaptiveProblems(config: SwimConfig, ok: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const { adaptiveTimeoutCeilingMs: ceiling, adaptiveTimeoutFloorMs: floor } = config;
  if (ok.has('adaptiveTimeoutCeilingMs') && ok.has('probeIntervalMs') && ceiling >= config.probeIntervalMs) {
    problems.push(
      `adaptiveTimeoutCeilingMs must be less than probeIntervalMs (${config.probeIntervalMs}), got ${ceiling}` +
        ' (the adaptive wait for a direct ack must leave time for indirect probes before the interval ends, as probeTimeoutMs)',
    );
  }
  if (ok.has('adaptiveTimeoutFloorMs') && ok.has('adaptiveTimeoutCeilingMs') && floor > ceiling) {
    problems.push(`adaptiveTimeoutFloorMs must be at most adaptiveTimeoutCeilingMs (${ceiling}), got ${floor}`);
  }
  if (ok.has('adaptiveTimeoutMinSamples') && ok.has('adaptiveTimeoutWindow') && config.adaptiveTimeoutMinSamples > config.adaptiveTimeoutWindow) {
    problems.push(
      `adaptiveTimeoutMinSamples must be at most adaptiveTimeoutWindow (${config.adaptiveTimeoutWindow}), got ${config.adaptiveTimeoutMinSamples}` +
        ' (otherwise no member ever has enough RTTs, and every probe waits probeTimeoutMs)',
    );
  }
  return problems;
}

/** Levenshtein distance, for "did you mean" on misspelt keys. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** The problem for an unknown option, with the closest of `fields` as a suggestion. */
export function unknownKey(key: string, fields: readonly string[] = FIELDS): string {
  let best: string | undefined;
  let bestDistance = 4; // suggest only close matches
  for (const field of fields) {
    const d = distance(key.toLowerCase(), field.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [field, d];
  }
  return `unknown option ${JSON.stringify(key)}${best ? ` (did you mean '${best}'?)` : ''}`;
}

/**
 * A preset (default 'lan') with `overrides` on top, validated. Keys whose value is `undefined` are
 * ignored, so `{ probeIntervalMs: opts.interval }` keeps the preset value when `opts.interval` is
 * not set. Unknown keys (typos) and a non-object `overrides` are problems too.
 * @returns a fresh, frozen config.
 * @throws ConfigError listing every problem at once.
 */
export function resolveConfig(overrides?: Partial<SwimConfig>, preset: PresetName = 'lan'): SwimConfig {
  const problems: string[] = [];
  let base: SwimConfig;
  if ((PRESET_NAMES as readonly unknown[]).includes(preset)) {
    base = presets[preset]();
  } else {
    problems.push(`preset must be one of ${PRESET_NAMES.map((p) => `'${p}'`).join(', ')}, got ${show(preset)}`);
    base = presets.lan();
  }
  const picked: Record<string, unknown> = {};
  if (typeof overrides === 'object' && overrides !== null && !Array.isArray(overrides)) {
    for (const [key, value] of Object.entries(overrides)) {
      if (!Object.hasOwn(RULES, key)) problems.push(unknownKey(key));
      else if (value !== undefined) picked[key] = value;
    }
  } else if (overrides !== undefined) {
    problems.push(`overrides must be an object, got ${show(overrides)}`);
  }
  const config = Object.freeze({ ...base, ...picked }) as SwimConfig;
  problems.push(...validateConfig(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
