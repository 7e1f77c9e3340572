/** `pnpm bench scale`'s report: what forming each size cost, the crash and blackout cells, and the targets' verdicts. */
import { baseConfig, profileConfig, profileDescription } from '../../profiles.js';
import { provenance } from '../../report/provenance.js';
import { formatDuration } from '../../stats.js';
import type { RunInfo } from '../index.js';
import { verdicts, type RunCost, type ScaleResult, type ScaleSize, type ScaleVerdicts } from './run.js';

/** The size the issue sets its targets at. */
export const TARGET_NODES = 5000;

const s1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const num = (v: number, digits = 2): string => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const costText = (costs: readonly RunCost[]): string => costs.map((c) => `${formatDuration(c.wallMs)} (${formatDuration(c.cpuMs)})`).join(', ');

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(header: readonly string[], leftColumns: number, rows: readonly (readonly string[])[]): string {
  return [row(header), row(header.map((_, i) => (i < leftColumns ? '---' : '---:'))), ...rows.map(row)].join('\n');
}

function formationTable(result: ScaleResult): string {
  const rows = result.sizes.flatMap((size) => {
    const cells = [...size.crash.map((c) => ({ experiment: 'crash', cell: c })), ...size.blackout.map((c) => ({ experiment: 'blackout', cell: c }))];
    return cells.flatMap(({ experiment, cell }) =>
      cell.runs.flatMap((run) => {
        const f = run.formationCost;
        if (f === undefined) return [];
        return [
          [
            String(size.nodes),
            `${experiment}, ${cell.profile}, seed ${run.seed}`,
            formatDuration(f.convergedAtMs),
            formatDuration(f.quietAtMs),
            `${formatDuration(f.wallMs)} (${formatDuration(f.cpuMs)})`,
            mib(f.rssBytes),
            `${(f.heapBytes / (size.nodes * size.nodes)).toFixed(0)} B`,
          ],
        ];
      }),
    );
  });
  if (rows.length === 0) return 'Formed by joins: the formation is part of each run and not timed on its own.';
  return table(['nodes', 'run', 'converged at (simulated)', 'quiet at (simulated)', 'formed and settled in, wall (CPU)', 'RSS then', 'heap per member entry'], 2, rows);
}

function crashTable(result: ScaleResult): string {
  const rows = result.sizes.flatMap((size) =>
    size.crash.map((c) => {
      const crashes = c.runs.reduce((n, r) => n + r.crashes.length, 0);
      const seenByAll = crashes - c.undetected;
      return [
        String(size.nodes),
        c.profile,
        String(crashes),
        `${c.firstDead.count} / ${crashes}`,
        `${seenByAll} / ${crashes}`,
        `${num(c.firstDead.median)} / ${num(c.firstDead.p90)} / ${num(c.firstDead.max)}`,
        `${num(c.allDead.median)} / ${num(c.allDead.max)}`,
        String(c.runs.reduce((n, r) => n + r.falseDeaths, 0)),
        costText(c.costs),
      ];
    }),
  );
  return table(
    ['nodes', 'profile', 'crashes', 'declared dead by someone', 'seen dead by every survivor', 'first dead, s: median / p90 / max', 'all survivors, s: median / max', 'false deaths', 'wall (CPU) per run'],
    2,
    rows,
  );
}

function blackoutTable(result: ScaleResult): string {
  const rows = result.sizes.flatMap((size) =>
    size.blackout.map((c) => [
      String(size.nodes),
      String(c.cut),
      String(c.outage),
      c.profile,
      c.runs.map((r) => String(r.falseDeaths)).join(', '),
      c.runs.map((r) => String(r.falseVictims)).join(', '),
      c.runs.map((r) => `${r.overdueVerdicts} (${r.overdueConfirmed})`).join(', '),
      c.runs.map((r) => String(r.stillDeadAtEnd)).join(', '),
      c.runs.map((r) => String(r.deathsBeforeCut)).join(', '),
      num(size.maxSuspicionS[c.profile] ?? Number.NaN, 1),
      costText(c.costs),
    ]),
  );
  return table(
    ['nodes', 'cut', 'outage (s)', 'profile', 'false deaths', 'healthy members wrongly declared', 'overdue verdicts (confirmed)', 'healthy pairs still not alive at the end', 'deaths before the cut', 'max suspicion timeout (s)', 'wall (CPU) per run'],
    4,
    rows,
  );
}

function verdictLines(v: ScaleVerdicts): string[] {
  const undetected = Object.entries(v.undetected).map(([p, n]) => `${p} ${n}`).join(', ');
  const falseDeaths = Object.entries(v.falseDeaths).map(([p, n]) => `${p} ${n}`).join(', ');
  const lines: string[] = [];
  if (v.everyCrashDetected === undefined) lines.push('- crash: not run');
  else lines.push(`- crash, every crash seen dead by every survivor: ${v.everyCrashDetected ? 'met' : '**not met**'} (crashes not seen by every survivor: ${undetected})`);
  if (v.defaultClean === undefined && v.memberlistLeaks === undefined) lines.push('- blackout: not run');
  if (v.defaultClean !== undefined) lines.push(`- blackout, 0 false deaths for default: ${v.defaultClean ? 'met' : '**not met**'} (false deaths: ${falseDeaths})`);
  if (v.memberlistLeaks !== undefined) lines.push(`- blackout, memberlist leaks (false deaths > 0): ${v.memberlistLeaks ? 'shown' : '**not shown**'} (memberlist ${v.falseDeaths.memberlist})`);
  return lines;
}

function targetsText(result: ScaleResult): string {
  const parts: string[] = [];
  const note = (nodes: number) => (nodes === TARGET_NODES ? ' (the issue sets its targets here)' : '');
  for (const size of result.sizes) {
    parts.push(`At ${size.nodes.toLocaleString('en-US')} members${note(size.nodes)}:`, '', ...verdictLines(verdicts(size)), '');
  }
  for (const nodes of result.params.nodes.filter((n) => !result.sizes.some((s) => s.nodes === n))) {
    parts.push(`At ${nodes.toLocaleString('en-US')} members${note(nodes)}: not run yet.`, '');
  }
  if (!result.params.nodes.includes(TARGET_NODES)) parts.push(`The issue's targets are at ${TARGET_NODES.toLocaleString('en-US')} members, which this run did not include.`, '');
  return parts.join('\n');
}

export function scaleSummary(result: ScaleResult): string {
  return [formationTable(result), '', crashTable(result), '', blackoutTable(result), '', targetsText(result)].join('\n');
}

/** A report read back from its JSON (`pnpm bench scale --render`), with how it was run. */
export function scaleFromJson(json: Record<string, unknown>): { result: ScaleResult; info: RunInfo } {
  if (json['experiment'] !== 'scale' || !Array.isArray(json['sizes'])) throw new Error('not a pnpm bench scale report');
  const { command, date, node, wallMs, params, sizes, peakRssBytes, machine, source, partial } = json as unknown as ScaleResult & RunInfo & { partial?: string };
  const result: ScaleResult = { experiment: 'scale', params, sizes, complete: partial === undefined, peakRssBytes, machine, ...(source === undefined ? {} : { source }) };
  return { result, info: { command, date, node, wallMs } };
}

export function scaleJson(result: ScaleResult, info: RunInfo): unknown {
  const { experiment, params, sizes, ...rest } = result;
  return {
    ...provenance(experiment, info),
    ...(result.complete ? {} : { partial: 'written after a cell while the run was still going; cells not listed had not run' }),
    settings: {
      base: baseConfig(),
      profiles: Object.fromEntries(params.profiles.map((p) => [p, { description: profileDescription(p), config: profileConfig(p) }])),
    },
    params,
    ...rest,
    verdicts: sizes.map(verdicts),
    sizes,
  };
}

function formationText(result: ScaleResult): string {
  if (result.params.formation === 'joins') {
    return 'Formed: by joins, as in the other experiments: n1 … n(N−1) join through n0, spread over the first second, run until every member sees every other alive, then 10 s more.';
  }
  return [
    '**Formed: pre-formed, not a join storm.** Each run starts from a cluster that `Simulation.formCluster` pre-forms: every member',
    'preloads all N members alive at their own incarnation (`Member.preload`), so it starts converged and nothing about the others is',
    'queued for gossip; only each member\'s own first alive goes out. The run waits until the members send no more than a quiet cluster',
    'does (≤ 2.1 packets per member per second), then 10 s more, and measures from there. Joins would gossip every member to every',
    'member first (N² updates, each retransmitted memberlist retransmitLimit times): 47 CPU minutes at 5,000 members when the',
    'formation went through joins. The packages/transport-memory test `form-cluster.test.ts` checks that the pre-formed steady state',
    'is the one joins reach (same tables, nothing queued, no suspicion).',
  ].join('\n');
}

function sourceLine({ source }: ScaleResult): string {
  if (source === undefined) return '';
  const changes = source.uncommitted.length === 0 ? 'no uncommitted source changes' : `uncommitted changes to ${source.uncommitted.join(', ')}`;
  return `  \nCode: commit ${source.commit}, ${changes}`;
}

export function scaleMarkdown(result: ScaleResult, info: RunInfo): string {
  const { params, machine } = result;
  const partial = result.complete
    ? ''
    : `\n**Partial: written after a cell while the run was still going (${formatDuration(info.wallMs)} in); cells not listed had not run.**\n`;
  return `# Scale: crash detection and a blackout at ${params.nodes.map((n) => n.toLocaleString('en-US')).join(' and ')} members (issue 15)
${partial}
Command: \`${info.command}\`  
Date: ${info.date}  
Node ${info.node}, ${machine.cpus} CPUs, ${(machine.totalMemoryBytes / 2 ** 30).toFixed(0)} GiB; wall time ${formatDuration(info.wallMs)}; peak RSS ${mib(result.peakRssBytes)}  
Machine load average (1 min) at the start and the end: ${machine.loadAverage.map((l) => l.toFixed(2)).join(' and ')} (wall times include other load; CPU times do not)${sourceLine(result)}

The crash experiment (apps/bench/src/experiments/crash.ts: ${params.crashes} members crashed 5 s apart, then until every survivor has
declared each dead, at most 120 s) and one blackout cell (blackout.ts: ${params.cutShare * 100} % of the members cut off for ${params.outageS} s,
then 90 s watched; a false death is a healthy member declaring a healthy one dead) at each size, for the profiles
${params.profiles.join(', ')}; ${params.runs} run${params.runs === 1 ? '' : 's'} per cell (seed${params.runs === 1 ? ` ${params.seed}` : `s ${params.seed}–${params.seed + params.runs - 1}`}).

${formationText(result)}

## Targets

${targetsText(result)}
## Forming the clusters

What forming each run's cluster cost, up to the end of its 10 s of settling: heap per member entry is the heap plus ArrayBuffer bytes
(where the member tables keep their rows) in use then, after a full collection, over N² (every member holds an entry for every member; at small N the process's own ~15 MB dominates).

${formationTable(result)}

## Crash detection

First dead: from the crash to the first survivor's \`dead\` verdict about it; all survivors: to the last one's.

${crashTable(result)}

## Blackout

Overdue verdicts: dead verdicts that cut-off members' own suspicion timers reached about healthy members within 2 s after the outage
ended (the corrections study's mechanism, docs/corrections-study.md). Deaths before the cut: a sanity check (0).

${blackoutTable(result)}

Profiles: ${params.profiles.map((p) => `\`${p}\`: ${profileDescription(p)}`).join('; ')}.
`;
}
