import { ADAPTIVE_PROFILES, NETWORKS, type AdaptiveProfile, type NetworkName } from './experiments/adaptive.js';
import { ALL_PROFILE_NAMES, isProfileName, type ProfileName } from './profiles.js';

export const EXPERIMENTS = ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'detectors', 'adaptive', 'core', 'attack', 'crypto', 'lifeguard', 'starve', 'udp-scale', 'scale', 'restart', 'soak', 'gateway', 'all'] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

/** Parsed command line. Unset optional fields take the experiment's defaults (see main.ts). */
export interface CliOptions {
  readonly experiment: ExperimentName;
  readonly nodes?: readonly number[];
  readonly runs?: number;
  readonly seed?: number;
  readonly profiles?: readonly ProfileName[];
  /** `--profile` of the adaptive experiment, which compares its own profiles. */
  readonly adaptiveProfiles?: readonly AdaptiveProfile[];
  /** Latency models (adaptive). */
  readonly networks?: readonly NetworkName[];
  /** Members cut off at once (blackout, lifeguard-off). */
  readonly cut?: readonly number[];
  /** Outage lengths in seconds (blackout, lifeguard-off). */
  readonly outage?: readonly number[];
  /** Uniform packet loss probabilities (loss). */
  readonly loss?: readonly number[];
  /** Simulated minutes under loss (loss). */
  readonly minutes?: number;
  /** Members crashed per run (crash). */
  readonly crashes?: number;
  /** Measured simulated seconds (speed). */
  readonly window?: number;
  /** Wall seconds a join storm may run (speed). */
  readonly stormWallLimit?: number;
  /** Measure the steady state only (speed). */
  readonly skipStorms?: boolean;
  /** Simulated hours per calm or busy trace (detectors). */
  readonly hours?: number;
  /** Members fill packets to an encrypted member's budget (blackout). */
  readonly encrypt?: boolean;
  readonly json?: string;
  readonly out?: string;
  readonly quick: boolean;
  readonly help: boolean;
}

export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

type Kind = 'int-list' | 'number-list' | 'int' | 'number' | 'profiles' | 'networks' | 'path' | 'boolean';

interface FlagSpec {
  readonly key: Exclude<keyof CliOptions, 'experiment' | 'help'>;
  readonly kind: Kind;
  readonly value?: string;
  readonly help: string;
  /** Experiments the flag applies to; undefined = all. */
  readonly only?: readonly ExperimentName[];
  /** Smallest allowed value (each list item). */
  readonly min?: number;
  /** The minimum itself is excluded. */
  readonly above?: true;
  /** Values must be below this (exclusive). */
  readonly below?: number;
}

/** Every flag, in the order the usage text lists them. */
const FLAGS: Readonly<Record<string, FlagSpec>> = {
  '--nodes': { key: 'nodes', kind: 'int-list', value: 'N[,N...]', help: 'cluster size(s); default 128 (speed: 128,1000; adaptive: 64,128)', min: 3, only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'adaptive', 'all'] },
  '--runs': { key: 'runs', kind: 'int', value: 'R', help: 'runs per cell; run i uses seed S + i; default 3 (adaptive: 5; detectors: traces per regime, default 500)', min: 1, only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'detectors', 'adaptive', 'all'] },
  '--seed': { key: 'seed', kind: 'int', value: 'S', help: 'first seed; default 1', min: 0, below: 2 ** 32, only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'detectors', 'adaptive', 'all'] },
  '--profile': {
    key: 'profiles',
    kind: 'profiles',
    value: 'P[,P...]',
    help:
      'profiles to compare; default memberlist,grace,health-at-creation,health-at-expiry,default (lifeguard-off: lifeguard-off,memberlist,default; speed: default; adaptive: its own, fixed-500,adaptive,wan,wan-adaptive)',
    only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'adaptive', 'all'],
  },
  '--cut': { key: 'cut', kind: 'int-list', value: 'K[,K...]', help: 'members cut off at once; default 1,8,32 (lifeguard-off: 1)', min: 1, only: ['blackout', 'lifeguard-off', 'all'] },
  '--outage': {
    key: 'outage',
    kind: 'number-list',
    value: 'SECONDS[,...]',
    help: 'outage lengths; default 16,24,33,50,65,90,130 (lifeguard-off: 16)',
    min: 0,
    above: true,
    only: ['blackout', 'lifeguard-off', 'all'],
  },
  '--loss': { key: 'loss', kind: 'number-list', value: 'P[,P...]', help: 'uniform packet loss probability; default 0.3,0.4', min: 0, below: 1, only: ['loss', 'all'] },
  '--minutes': { key: 'minutes', kind: 'number', value: 'M', help: 'simulated minutes under loss; default 10 (adaptive: measured after the warm-up; default 20)', min: 0, above: true, only: ['loss', 'adaptive', 'all'] },
  '--crashes': { key: 'crashes', kind: 'int', value: 'C', help: 'members crashed per run, 5 s apart (adaptive: 10 s); default 10 (adaptive: 4)', min: 1, only: ['crash', 'adaptive', 'all'] },
  '--window': { key: 'window', kind: 'number', value: 'SECONDS', help: 'simulated seconds measured; default one push-pull interval at each size', min: 0, above: true, only: ['speed', 'all'] },
  '--skip-storms': { key: 'skipStorms', kind: 'boolean', help: 'measure the steady state only, no join storms', only: ['speed'] },
  '--storm-wall-limit': { key: 'stormWallLimit', kind: 'number', value: 'SECONDS', help: 'wall seconds a join storm may run before it counts as not converged; default 900', min: 0, above: true, only: ['speed'] },
  '--hours': { key: 'hours', kind: 'number', value: 'H', help: 'simulated hours per calm or busy trace; default 4 (the seed)', min: 0.05, above: true, only: ['detectors'] },
  '--network': { key: 'networks', kind: 'networks', value: 'NET[,NET...]', help: `networks: ${NETWORKS.join(', ')}; default all three`, only: ['adaptive'] },
  '--json': { key: 'json', kind: 'path', value: 'PATH', help: 'write the results as JSON to PATH', only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'detectors', 'adaptive', 'all'] },
  '--out': { key: 'out', kind: 'path', value: 'DIR', help: 'write <experiment>.json, .md and .svg into DIR', only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'detectors', 'adaptive', 'all'] },
  '--encrypt': {
    key: 'encrypt',
    kind: 'boolean',
    help: "members fill packets to an encrypted member's budget (the transport's 1400 B less @swim/encryption's 29-byte envelope); the simulator carries the core's bytes, not the ciphertext",
    only: ['blackout'],
  },
  '--quick': { key: 'quick', kind: 'boolean', help: 'a small deterministic subset (all: under two minutes)', only: ['blackout', 'crash', 'loss', 'lifeguard-off', 'speed', 'detectors', 'adaptive', 'all'] },
};

const EXPERIMENT_HELP: Readonly<Record<ExperimentName, string>> = {
  blackout: 'cut K members off at once, count false deaths after they reconnect (docs/corrections-study.md)',
  crash: 'crash members; time until the first member declares each dead',
  loss: 'uniform packet loss; false deaths with and without the fallback stream ping',
  'lifeguard-off': 'one member cut off 16 s with Lifeguard off vs on',
  speed: 'simulated seconds per wall-clock second at 128 and 1,000 members',
  detectors: 'the heartbeat-detector lab (apps/bench/results/detectors.md): fixed timeout, phi and exponential phi on calm and busy heartbeat traces',
  adaptive: 'adaptive vs fixed probe timeouts on a LAN and a WAN-like network: false suspicions, false deaths, crash detection',
  core: "the core's packet throughput benchmark (packages/core/bench/throughput.ts)",
  attack: 'attacks on real agents and a gateway on loopback (issue 10); its own flags: pnpm bench attack --help',
  crypto: 'members over real UDP with and without encryption: CPU, packets/s, loop delay (issue 11); its own flags: pnpm bench crypto --help',
  lifeguard: "the Lifeguard paper's Threshold and Interval experiments per component, beside its Tables IV-VI; its own flags: pnpm bench lifeguard --help",
  starve: "real swim agents, k of them starved (event loop blocked, or SIGSTOP/SIGCONT): FP and FP- (the Lifeguard paper's Figure 1); its own flags: pnpm bench starve --help",
  'udp-scale': 'members per process over real UDP, 1,000 to 5,000, beside memberlist (Go) with --memberlist (issue 15); its own flags: pnpm bench udp-scale --help',
  scale: 'the crash experiment and one blackout cell at 1,000 and 5,000 simulated members (issue 15); its own flags: pnpm bench scale --help',
  restart: 'rolling restarts and whole-cluster restart waves at 48, 128 and 1,000 simulated members, beside the memberlist profile, with and without snapshots (issue 28); its own flags: pnpm bench restart --help',
  soak: 'a day under a seeded nemesis, checked by the soak invariants (issue 29): --simulator: 200 simulated members for 24 simulated hours, beside the memberlist profile; its own flags: pnpm bench soak --simulator --help',
  gateway: 'browser members through one WebSocket gateway: its CPU, RSS and loop delay per member, joins, leaves and cuts seen by UDP agents, beside real Chromium pages (issue 31); its own flags: pnpm bench gateway --help',
  all: 'every experiment in turn (with --quick: the deterministic subset)',
};

export function usage(): string {
  const lines = ['Usage: pnpm bench <experiment> [flags]', '', 'Experiments:'];
  for (const name of EXPERIMENTS) lines.push(`  ${name.padEnd(14)} ${EXPERIMENT_HELP[name]}`);
  lines.push('', 'Flags (lists are comma-separated; --flag=value also works):');
  for (const [flag, spec] of Object.entries(FLAGS)) {
    const left = spec.value === undefined ? flag : `${flag} ${spec.value}`;
    const sim = EXPERIMENTS.filter((e) => e !== 'core' && e !== 'attack' && e !== 'crypto' && e !== 'lifeguard' && e !== 'starve' && e !== 'udp-scale' && e !== 'scale' && e !== 'restart' && e !== 'soak' && e !== 'gateway' && e !== 'all');
    const applies = spec.only?.filter((e) => e !== 'all') ?? sim;
    const only = sim.every((e) => applies.includes(e)) ? '' : ` [${applies.join(', ')}]`;
    lines.push(`  ${left.padEnd(24)} ${spec.help}${only}`);
  }
  lines.push(`  ${'-h, --help'.padEnd(24)} this text`);
  lines.push('', `Profiles: ${ALL_PROFILE_NAMES.join(', ')} (adaptive: ${ADAPTIVE_PROFILES.join(', ')})`);
  lines.push(
    '',
    'Examples:',
    '  pnpm bench blackout --cut 1,8,32 --outage 16,24,33,50,65,90,130 --out results',
    '  pnpm bench crash --nodes 128 --runs 3 --json crash.json',
    '  pnpm bench detectors --out apps/bench/results',
    '  pnpm bench adaptive --network wan --runs 5 --out apps/bench/results',
    '  pnpm bench all --quick',
  );
  return lines.join('\n');
}

/** Parse `argv` (without node and script). Throws {@link CliError} with a message fit for the user. */
export function parseArgs(argv: readonly string[]): CliOptions {
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  let experiment: string | undefined;
  let help = false;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (arg === '--') continue; // pnpm may pass one through
    if (!arg.startsWith('-')) {
      if (experiment !== undefined) throw new CliError(`unexpected argument "${arg}": give one experiment (${experiment} already given)`);
      experiment = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const spec = FLAGS[flag];
    if (spec === undefined) throw new CliError(`unknown flag ${flag}${suggest(flag)}`);
    if (given.has(flag)) throw new CliError(`${flag} given twice`);
    given.add(flag);
    if (spec.kind === 'boolean') {
      if (eq !== -1) throw new CliError(`${flag} takes no value`);
      values[spec.key] = true;
      continue;
    }
    let raw: string | undefined;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else {
      raw = argv[i + 1];
      if (raw === undefined || (raw.startsWith('--') && raw.length > 2)) throw new CliError(`${flag} needs a value (${spec.value})`);
      i++;
    }
    values[spec.key] = parseValue(flag, spec, raw);
  }

  if (help) return { experiment: (experiment ?? 'all') as ExperimentName, quick: false, help: true };
  if (experiment === undefined) throw new CliError(`no experiment given; one of: ${EXPERIMENTS.join(', ')}`);
  if (!(EXPERIMENTS as readonly string[]).includes(experiment)) {
    throw new CliError(`unknown experiment "${experiment}"; one of: ${EXPERIMENTS.join(', ')}`);
  }
  const name = experiment as ExperimentName;
  for (const flag of given) {
    const only = FLAGS[flag]!.only;
    if (only !== undefined && !only.includes(name)) {
      throw new CliError(`${flag} does not apply to ${name} (it applies to: ${only.filter((e) => e !== 'all').join(', ')})`);
    }
  }
  if (values['profiles'] !== undefined) {
    // Profile names are checked once the experiment is known: adaptive compares its own.
    const names = values['profiles'] as string[];
    const known: readonly string[] = name === 'adaptive' ? ADAPTIVE_PROFILES : ALL_PROFILE_NAMES;
    const unknown = names.find((p) => !known.includes(p));
    if (unknown !== undefined) throw new CliError(`--profile: unknown profile "${unknown}"; one of: ${known.join(', ')}`);
    if (name === 'adaptive') {
      values['adaptiveProfiles'] = names;
      delete values['profiles'];
    }
  }
  const options = { experiment: name, quick: false, help: false, ...values } as CliOptions;
  checkAgainstNodes(options);
  return options;
}

function parseValue(flag: string, spec: FlagSpec, raw: string): unknown {
  if (raw.trim() === '') throw new CliError(`${flag} needs a value (${spec.value})`);
  switch (spec.kind) {
    case 'path':
      return raw;
    case 'profiles': {
      const names = splitList(flag, raw);
      for (const name of names) {
        if (!isProfileName(name) && !(ADAPTIVE_PROFILES as readonly string[]).includes(name)) {
          throw new CliError(`${flag}: unknown profile "${name}"; one of: ${ALL_PROFILE_NAMES.join(', ')} (adaptive: ${ADAPTIVE_PROFILES.join(', ')})`);
        }
      }
      if (new Set(names).size !== names.length) throw new CliError(`${flag}: a profile is listed twice`);
      return names;
    }
    case 'networks': {
      const names = splitList(flag, raw);
      for (const name of names) {
        if (!(NETWORKS as readonly string[]).includes(name)) throw new CliError(`${flag}: unknown network "${name}"; one of: ${NETWORKS.join(', ')}`);
      }
      if (new Set(names).size !== names.length) throw new CliError(`${flag}: a network is listed twice`);
      return names;
    }
    case 'int':
    case 'number':
      if (raw.includes(',')) throw new CliError(`${flag} takes one value, not a list: "${raw}"`);
      return parseNumber(flag, spec, raw);
    case 'int-list':
    case 'number-list': {
      const items = splitList(flag, raw).map((item) => parseNumber(flag, spec, item));
      if (new Set(items).size !== items.length) throw new CliError(`${flag}: a value is listed twice in "${raw}"`);
      return items;
    }
    case 'boolean':
      return true;
  }
}

function splitList(flag: string, raw: string): string[] {
  const items = raw.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new CliError(`${flag}: empty item in list "${raw}"`);
  return items;
}

function parseNumber(flag: string, spec: FlagSpec, raw: string): number {
  const integer = spec.kind === 'int' || spec.kind === 'int-list';
  const value = Number(raw);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw) || !Number.isFinite(value)) {
    throw new CliError(`${flag}: "${raw}" is not a number`);
  }
  if (integer && !Number.isInteger(value)) throw new CliError(`${flag}: "${raw}" is not a whole number`);
  if (spec.min !== undefined) {
    if (spec.above && value <= spec.min) throw new CliError(`${flag}: ${raw} must be greater than ${spec.min}`);
    if (!spec.above && value < spec.min) throw new CliError(`${flag}: ${raw} must be at least ${spec.min}`);
  }
  if (spec.below !== undefined && value >= spec.below) throw new CliError(`${flag}: ${raw} must be less than ${spec.below}`);
  return value;
}

/** Cross-flag checks that need the cluster size. */
function checkAgainstNodes(options: CliOptions): void {
  const smallest = options.nodes === undefined ? (options.experiment === 'adaptive' ? 64 : 128) : Math.min(...options.nodes);
  for (const k of options.cut ?? []) {
    if (k >= smallest) throw new CliError(`--cut ${k}: must leave at least one healthy member (smallest --nodes is ${smallest})`);
  }
  if (options.crashes !== undefined && options.crashes >= smallest - 1) {
    throw new CliError(`--crashes ${options.crashes}: must leave at least two survivors (smallest --nodes is ${smallest})`);
  }
}

/** " (did you mean --cut?)" for a close misspelling. */
function suggest(flag: string): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of [...Object.keys(FLAGS), '--help']) {
    const d = editDistance(flag, known);
    if (d < bestDistance) {
      bestDistance = d;
      best = known;
    }
  }
  return best === undefined ? '; see --help' : ` (did you mean ${best}?)`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
