import type { RunInfo } from '../experiments/index.js';

/** The head of every JSON report: which experiment, the command that made it, when, on what. */
export function provenance(experiment: string, info: RunInfo): Record<string, unknown> {
  return {
    experiment,
    command: info.command,
    date: info.date,
    node: info.node,
    wallMs: Math.round(info.wallMs),
  };
}
