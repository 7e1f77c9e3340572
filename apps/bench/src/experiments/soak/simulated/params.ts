import { parseArgs } from 'node:util';
import { pushPullIntervalMs, type SwimConfig } from '@swim/core';
import { numberFlag, type OwnFlagsOptions } from '../../own-flags.js';
import { FAULT_WEIGHTS, RANGES } from './nemesis.js';
import { SOAK_PROFILES, type SoakProfile } from './profiles.js';

export interface SimulatedSoakParams {
  readonly members: number;
  readonly hours: number;
  readonly seed: number;
  /** Mean gap between faults, ms. */
  readonly faultEveryMs: number;
  readonly profiles: readonly SoakProfile[];
  /** Packet loss on every link, all day. */
  readonly loss: number;
  /** Invariant 3's bound, ms. */
  /** Invariant 3's bound; undefined: {@link antiEntropyBoundMs} of each profile's config. */
  readonly convergenceBoundMs: number | undefined;
  /** Mean gaps of tag updates and user broadcasts, ms. */
  readonly tagsEveryMs: number;
  readonly broadcastEveryMs: number;
  /** First fault at this virtual time (the cluster forms first). */
  readonly firstFaultMs: number;
}

export const SIMULATED_SOAK_DEFAULTS: SimulatedSoakParams = {
  members: 200,
  hours: 24,
  seed: 1,
  faultEveryMs: 120_000,
  profiles: SOAK_PROFILES,
  loss: 0.01,
  convergenceBoundMs: undefined,
  tagsEveryMs: 600_000,
  broadcastEveryMs: 60_000,
  firstFaultMs: 60_000,
};

export const DEFAULT_OUT = 'apps/bench/results/soak-simulated';

export interface SimulatedSoakOptions extends OwnFlagsOptions {
  readonly params: SimulatedSoakParams;
}

const range = (r: readonly [number, number], unit = 's', div = 1000) => `${r[0] / div}-${r[1] / div} ${unit}`;

export const SIMULATED_SOAK_USAGE = `Usage: pnpm bench soak --simulator [flags]

A simulated day (issue 29): a cluster of simulated members (Simulation.startCluster, real cores
and runtimes on virtual time) under a seeded nemesis, ${SIMULATED_SOAK_DEFAULTS.loss * 100} % packet loss on every link all day,
then the soak invariant checker over every membership event. A fault every ~--fault-every s
(uniform 0.5-1.5x), on members no other fault holds, at most a quarter of the cluster at once;
weights ${Object.entries(FAULT_WEIGHTS).map(([k, w]) => `${k} ${w}`).join(', ')}:
  crash       kill -9, restarted after ${range(RANGES.crashDownMs)} (half from the snapshot taken at the crash)
  crash-long  kill -9, down past the failure-detection bound (so that every member must see it dead)
  pause       SIGSTOP ${range(RANGES.pauseMs)}
  blackout    ${range(RANGES.blackoutMembers, 'members', 1)} cut off ${range(RANGES.blackoutMs)}
  partition   ${RANGES.partitionShare * 100} % of the members cut off from the rest ${range(RANGES.partitionMs)}, then healed
  leave       a graceful leave, the process exits, a new one rejoins ${range(RANGES.leaveDownMs)} after the leave
plus a tag (meta) update every ~${SIMULATED_SOAK_DEFAULTS.tagsEveryMs / 60_000} min and a user broadcast every ~${SIMULATED_SOAK_DEFAULTS.broadcastEveryMs / 60_000} min. Both profiles
see the same faults. The heap is read after each simulated hour (after a forced GC).

Flags:
  --simulator          this run (without it: the real-agent soak)
  --members N          cluster size (default ${SIMULATED_SOAK_DEFAULTS.members})
  --hours H            simulated hours (default ${SIMULATED_SOAK_DEFAULTS.hours})
  --seed S             seed of the simulation and the nemesis (default ${SIMULATED_SOAK_DEFAULTS.seed})
  --fault-every T      mean seconds between faults (default ${SIMULATED_SOAK_DEFAULTS.faultEveryMs / 1000})
  --profile P          defaults, memberlist or both (default both)
  --loss P             packet loss on every link, 0-1 (default ${SIMULATED_SOAK_DEFAULTS.loss})
  --convergence-bound-s T  invariant 3's bound (default: one push-pull interval for the cluster size plus a probe
                       interval: 121 s at 200 members on the lan preset)
  --out DIR            write soak.json, .md and .svg into DIR (default ${DEFAULT_OUT})
  --json PATH          also write the JSON to PATH
  -h, --help           this text`;

/** Parse the flags after `soak`; throws an Error listing every problem. */
export function parseSimulatedSoakArgs(argv: readonly string[]): SimulatedSoakOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      simulator: { type: 'boolean', default: false },
      members: { type: 'string' },
      hours: { type: 'string' },
      seed: { type: 'string' },
      'fault-every': { type: 'string' },
      profile: { type: 'string' },
      loss: { type: 'string' },
      'convergence-bound-s': { type: 'string' },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'soak');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = SIMULATED_SOAK_DEFAULTS;
  let profiles = base.profiles;
  if (values.profile !== undefined) {
    if (values.profile === 'both') profiles = SOAK_PROFILES;
    else if ((SOAK_PROFILES as readonly string[]).includes(values.profile)) profiles = [values.profile as SoakProfile];
    else problems.push(`--profile: "${values.profile}" is not one of ${SOAK_PROFILES.join(', ')}, both`);
  }
  const params: SimulatedSoakParams = {
    ...base,
    profiles,
    members: numberFlag(problems, 'members', values.members, base.members, 8, true, 5_000),
    hours: numberFlag(problems, 'hours', values.hours, base.hours, 1, true, 24 * 14),
    seed: numberFlag(problems, 'seed', values.seed, base.seed, 0, true, 2 ** 32 - 1),
    faultEveryMs: numberFlag(problems, 'fault-every', values['fault-every'], base.faultEveryMs / 1000, 5, false, 86_400) * 1000,
    loss: numberFlag(problems, 'loss', values.loss, base.loss, 0, false, 0.5),
    convergenceBoundMs:
      values['convergence-bound-s'] === undefined ? base.convergenceBoundMs : numberFlag(problems, 'convergence-bound-s', values['convergence-bound-s'], 60, 1, false, 86_400) * 1000,
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out ?? DEFAULT_OUT, help: values.help };
}

/**
 * Invariant 3's default bound: one push-pull interval at this cluster size (memberlist
 * pushPullScale), plus a probe interval. Gossip spreads a change to nearly everyone within seconds,
 * but a member that missed every copy (lost packets, a retransmit budget spent while it was cut off)
 * is repaired by anti-entropy: its own next push-pull, with a member that holds the news, comes
 * within one interval.
 */
export function antiEntropyBoundMs(config: SwimConfig, members: number): number {
  return pushPullIntervalMs(config.pushPullIntervalMs, members) + config.probeIntervalMs;
}
