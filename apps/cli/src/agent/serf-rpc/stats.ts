/**
 * `stats` (serf `info`): Serf's sections, every value a string (serf agent Stats). Where a value
 * has no counterpart in a swim agent it is what a quiet Serf agent reports: queues "0", no event
 * handlers. `runtime` describes Node (os, arch as Go names them, version, cpu_count).
 */
import { availableParallelism, cpus } from 'node:os';
import type { Member } from '@swim/runtime';

export interface StatsSources {
  readonly member: Member;
  readonly tags: Readonly<Record<string, string>>;
  readonly encrypted: boolean;
  /** Serf's clocks (membership, user event, query): the SerfLayer's, or the swim agent's event clock. */
  readonly clocks: { readonly member: number; readonly event: number; readonly query: number };
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

export function serfStats(sources: StatsSources): Record<string, Record<string, string>> {
  const { member } = sources;
  const counts = member.memberCounts();
  return {
    agent: { name: member.name },
    runtime: {
      os: process.platform,
      arch: GO_ARCH[process.arch] ?? process.arch,
      version: `node${process.versions.node}`,
      max_procs: String(availableParallelism()),
      goroutines: '0',
      cpu_count: String(cpus().length),
    },
    serf: {
      members: String(counts.alive + counts.suspect + counts.dead + counts.left),
      failed: String(counts.dead),
      left: String(counts.left),
      health_score: String(member.healthScore),
      member_time: String(sources.clocks.member),
      event_time: String(sources.clocks.event),
      query_time: String(sources.clocks.query),
      intent_queue: '0',
      event_queue: '0',
      query_queue: '0',
      encrypted: String(sources.encrypted),
      coordinate_resets: '0',
    },
    tags: { ...sources.tags },
    event_handlers: {},
  };
}
