/**
 * The run's records in the shared checker's terms (checker/types.ts): the nemesis log mapped to
 * its ground-truth kinds (kill + restart, pause, partition, leave + rejoin, and the informational
 * rotate-key, tags, namespace-restart, forged-burst), exits, contained exceptions and the samples
 * of the processes that ran through the whole judged window.
 */
import type { ExceptionRecord, ExitRecord, NemesisAction, Observation, ResourceSample as CheckerSample, Timeline } from './checker/index.js';
import type { ContainedError, ExitEntry, NemesisRecord, ResourceSample } from './timeline.js';

function actionsOf(r: NemesisRecord): NemesisAction[] {
  const id = String(r.id);
  const detail = JSON.stringify(r.detail).slice(0, 200);
  switch (r.kind) {
    case 'kill': {
      const kill: NemesisAction = { id, kind: 'kill', targets: r.targets, start: r.start, detail };
      if (r.end === undefined) return [kill];
      // A snapshot agent restores the members it knew, alive, before it hears from anyone.
      return [kill, { id: `${id}-restart`, kind: 'restart', targets: r.targets, start: r.end, preloaded: r.detail['snapshot'] === true, detail: 'restart after kill -9' }];
    }
    case 'stop':
      return [{ id, kind: 'pause', targets: r.targets, start: r.start, end: r.end, detail }];
    case 'cut':
      return [{ id, kind: 'partition', targets: r.targets, start: r.start, end: r.end, detail }];
    case 'leave': {
      const leave: NemesisAction = { id, kind: 'leave', targets: r.targets, start: r.start, detail };
      // After a graceful leave a snapshot restores no members (Serf's snapshot): not preloaded.
      return r.end === undefined ? [leave] : [leave, { id: `${id}-rejoin`, kind: 'rejoin', targets: r.targets, start: r.end, detail: 'rejoin after leave' }];
    }
    case 'ns-restart': {
      const steps = (r.detail['steps'] ?? []) as Array<{ agent: string; stoppedAt: number; startedAt?: number }>;
      const out: NemesisAction[] = [{ id, kind: 'namespace-restart', targets: r.targets, start: r.start, end: r.end, detail }];
      for (const step of steps) {
        out.push({ id: `${id}-${step.agent}-leave`, kind: 'leave', targets: [step.agent], start: step.stoppedAt, detail: 'namespace restart (SIGTERM)' });
        if (step.startedAt !== undefined) out.push({ id: `${id}-${step.agent}-rejoin`, kind: 'rejoin', targets: [step.agent], start: step.startedAt, detail: 'namespace restart' });
      }
      return out;
    }
    case 'rotate':
      return [{ id, kind: 'rotate-key', targets: r.targets, start: r.start, end: r.end, detail }];
    case 'tags':
      return [{ id, kind: 'tags', targets: r.targets, start: r.start, end: r.end, detail }];
    case 'forge':
      return [{ id, kind: 'forged-burst', targets: r.targets, start: r.start, end: r.end, detail }];
  }
}

/**
 * Samples of the processes that ran through the whole judged window (the last three quarters):
 * one started later is warming up, one killed early leaves a few noisy points; neither says
 * anything about a leak. `slackMs`: how far from the window's ends a process's first and last
 * samples may be (two sampling periods).
 */
export function longLivedSamples(samples: readonly ResourceSample[], start: number, end: number, slackMs: number): CheckerSample[] {
  const from = start + (end - start) / 4;
  const seen = new Map<number, { first: number; last: number }>();
  for (const x of samples) {
    const span = seen.get(x.pid);
    if (span === undefined) seen.set(x.pid, { first: x.at, last: x.at });
    else span.last = x.at;
  }
  const throughout = (pid: number) => seen.get(pid)!.first <= from && seen.get(pid)!.last >= end - slackMs;
  return samples
    .filter((x) => throughout(x.pid))
    .map((x) => ({ at: x.at, member: x.agent, rss: x.rssBytes, heapUsed: x.heapUsedBytes, fds: x.fds, sockets: x.sockets }));
}

export function toTimeline(input: {
  readonly agents: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly observations: readonly Observation[];
  readonly records: readonly NemesisRecord[];
  readonly exits: readonly ExitEntry[];
  readonly containedErrors: readonly ContainedError[];
  /** Contained errors Prometheus counted (max_over_time of swim_contained_errors_total, summed over agents). */
  readonly promContainedErrors: number;
  readonly samples: readonly ResourceSample[];
  readonly sampleEveryMs: number;
}): Timeline {
  const exceptions: ExceptionRecord[] = input.containedErrors.map((e) => ({ at: e.at, member: e.agent, message: `${e.where}: ${e.error}` }));
  if (input.promContainedErrors > exceptions.length) {
    exceptions.push({ at: input.end, member: 'prometheus', message: `swim_contained_errors_total reached ${input.promContainedErrors} across agents, ${exceptions.length} seen in the monitor streams` });
  }
  const exits: ExitRecord[] = input.exits.map((e) => ({ at: e.at, member: e.agent, expected: e.expected !== undefined, code: e.code, signal: e.signal }));
  const observations = [...input.observations].sort((a, b) => a.at - b.at);
  return {
    members: input.agents,
    start: input.start,
    end: input.end,
    observations,
    nemesis: input.records.flatMap(actionsOf).sort((a, b) => a.start - b.start),
    samples: longLivedSamples(input.samples, input.start, input.end, 2 * input.sampleEveryMs),
    exits,
    exceptions,
  };
}
