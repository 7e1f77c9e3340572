import type { CliOptions, ExperimentName } from './cli.js';
import { ADAPTIVE_DEFAULTS, ADAPTIVE_QUICK, type AdaptiveParams } from './experiments/adaptive.js';
import { BLACKOUT_DEFAULTS, BLACKOUT_QUICK, type BlackoutParams } from './experiments/blackout.js';
import { CRASH_DEFAULTS, CRASH_QUICK, type CrashParams } from './experiments/crash.js';
import { DETECTORS_DEFAULTS, DETECTORS_QUICK, type DetectorsParams } from './experiments/detectors/run.js';
import { LIFEGUARD_OFF_DEFAULTS, LIFEGUARD_OFF_QUICK } from './experiments/lifeguard-off.js';
import { LOSS_DEFAULTS, LOSS_QUICK, type LossParams } from './experiments/loss.js';
import { SPEED_DEFAULTS, SPEED_QUICK, type SpeedParams } from './experiments/speed.js';

export type SimExperiment = Exclude<ExperimentName, 'core' | 'attack' | 'crypto' | 'lifeguard' | 'starve' | 'udp-scale' | 'scale' | 'restart' | 'soak' | 'gateway' | 'all'>;

/** The order `all` runs them in. */
export const ALL: readonly SimExperiment[] = ['blackout', 'lifeguard-off', 'crash', 'loss', 'speed', 'detectors', 'adaptive'];

/** Parameters of one experiment: its defaults (or quick subset) overridden by the flags given. */
export function resolveParams(name: SimExperiment, o: CliOptions, inAll = false): BlackoutParams | CrashParams | LossParams | SpeedParams | DetectorsParams | AdaptiveParams {
  const common = <T extends { nodes: readonly number[]; seed: number }>(base: T) => ({
    ...base,
    nodes: o.nodes ?? base.nodes,
    seed: o.seed ?? base.seed,
  });
  switch (name) {
    case 'blackout':
    case 'lifeguard-off': {
      const base = name === 'blackout' ? (o.quick ? BLACKOUT_QUICK : BLACKOUT_DEFAULTS) : o.quick ? LIFEGUARD_OFF_QUICK : LIFEGUARD_OFF_DEFAULTS;
      // Under `all`, --cut/--outage/--profile describe the blackout matrix; lifeguard-off keeps its own.
      const own = name === 'blackout' || !inAll;
      const cut = own ? o.cut : undefined;
      const outage = own ? o.outage : undefined;
      const { cells, ...rest } = common(base);
      return {
        ...rest,
        ...(cut === undefined && outage === undefined && cells !== undefined ? { cells } : {}),
        cuts: cut ?? base.cuts,
        outages: outage ?? base.outages,
        profiles: (own ? o.profiles : undefined) ?? base.profiles,
        runs: o.runs ?? base.runs,
        ...(name === 'blackout' && o.encrypt === true ? { encrypt: true } : {}),
      } satisfies BlackoutParams;
    }
    case 'crash': {
      const base = o.quick ? CRASH_QUICK : CRASH_DEFAULTS;
      return { ...common(base), crashes: o.crashes ?? base.crashes, profiles: o.profiles ?? base.profiles, runs: o.runs ?? base.runs } satisfies CrashParams;
    }
    case 'loss': {
      const base = o.quick ? LOSS_QUICK : LOSS_DEFAULTS;
      return {
        ...common(base),
        losses: o.loss ?? base.losses,
        minutes: o.minutes ?? base.minutes,
        profiles: o.profiles ?? base.profiles,
        runs: o.runs ?? base.runs,
      } satisfies LossParams;
    }
    case 'speed': {
      const base = o.quick ? SPEED_QUICK : SPEED_DEFAULTS;
      return {
        ...common(base),
        windowS: o.window ?? base.windowS,
        profiles: (inAll ? undefined : o.profiles) ?? base.profiles,
        stormWallLimitS: o.stormWallLimit ?? base.stormWallLimitS,
        skipStorms: o.skipStorms ?? base.skipStorms,
      } satisfies SpeedParams;
    }
    case 'detectors': {
      const base = o.quick ? DETECTORS_QUICK : DETECTORS_DEFAULTS;
      // Under `all`, --runs counts simulator runs per cell; the lab keeps its own number of traces.
      return { runs: (inAll ? undefined : o.runs) ?? base.runs, hours: o.hours ?? base.hours, seed: o.seed ?? base.seed } satisfies DetectorsParams;
    }
    case 'adaptive': {
      const base = o.quick ? ADAPTIVE_QUICK : ADAPTIVE_DEFAULTS;
      // Under `all`, --minutes and --crashes describe loss and crash; adaptive keeps its own.
      return {
        ...common(base),
        networks: o.networks ?? base.networks,
        profiles: o.adaptiveProfiles ?? base.profiles,
        minutes: (inAll ? undefined : o.minutes) ?? base.minutes,
        crashes: (inAll ? undefined : o.crashes) ?? base.crashes,
        runs: o.runs ?? base.runs,
      } satisfies AdaptiveParams;
    }
  }
}

