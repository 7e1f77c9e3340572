import { mkdirSync, writeFileSync } from 'node:fs';
import { provenance } from './provenance.js';
import { dirname } from 'node:path';
import { adaptiveJson } from '../experiments/adaptive-report.js';
import { detectorsJson } from '../experiments/detectors/report.js';
import type { ExperimentResult, RunInfo } from '../experiments/index.js';
import { baseConfig, profileConfig, profileDescription } from '../profiles.js';

/**
 * The JSON document of one experiment: provenance, the resolved settings of each profile, the
 * parameters, and the experiment's cells. For blackout each cell is
 * `{nodes, cut, outage, profile, runs: [{seed, falseDeaths, overdueVerdicts, …}], meanFalseDeaths, …}`.
 */
export function toJson(result: ExperimentResult, info: RunInfo): Record<string, unknown> {
  if (result.experiment === 'detectors') return detectorsJson(result, info);
  if (result.experiment === 'adaptive') return adaptiveJson(result, info);
  const { experiment, params, ...rest } = result;
  return {
    ...provenance(experiment, info),
    settings: {
      base: baseConfig(),
      profiles: Object.fromEntries(params.profiles.map((p) => [p, { description: profileDescription(p), config: profileConfig(p) }])),
    },
    params,
    ...rest,
  };
}

/** Writes `value` as indented JSON, creating the directory. Numbers are rounded to 6 significant digits. */
export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? +v.toPrecision(6) : v), 2)}\n`);
}
