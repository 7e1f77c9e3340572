/** `pnpm bench udp-scale`'s report: one row per size and implementation, the figures and the target's verdict. */
import { START_SPREAD_PER_MEMBER_MS } from '../../../../../packages/transport-udp/bench/cluster.js';
import type { RunInfo } from '../index.js';
import { MAX_LAG_P99_MS, type GoRun, type UdpScaleResult, type UdpScaleRow } from './result.js';

const fixed = (value: number | undefined, digits: number): string => (value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits));
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

const mib = (bytes: number | undefined): string => (bytes === undefined ? '—' : (bytes / 2 ** 20).toFixed(0));

function swimFormed(row: UdpScaleRow): string {
  const { swim } = row;
  if (!swim.grown) return `**NOT formed** (${swim.members} of ${row.members}) in ${seconds(swim.convergeMs)}`;
  if (!swim.converged) return `**formed, NOT converged** in ${seconds(swim.convergeMs)}`;
  return swim.formation === 'pre-formed' ? `converged in ${seconds(swim.convergeMs)} (created and preloaded in ${seconds(swim.formMs)})` : `converged in ${seconds(swim.convergeMs)}`;
}

/** Loop delay p50 / p99 / max; a window whose histogram took no sample has only a lower bound on the max. */
function lagCell(w: NonNullable<UdpScaleRow['swim']['window']>): string {
  if (w.lagSamples === 0) return `no sample (max ≥ ${fixed(w.lagMaxMs, 0)}: the window ended that late)`;
  return `${fixed(w.lagP50Ms, 1)} / ${fixed(w.lagP99Ms, 1)} / ${fixed(w.lagMaxMs, 1)}`;
}

function swimCells(row: UdpScaleRow): string[] {
  const { swim } = row;
  const w = swim.window;
  // A window without a delay sample has no p99 to judge: missed (NaN compares false).
  const verdict = w === undefined ? '**not measured**' : w.lagP99Ms < MAX_LAG_P99_MS ? 'met' : '**missed**';
  return [
    String(row.members),
    '@swim (Node)',
    swim.formation,
    swimFormed(row),
    fixed(w?.cpuMsPerMemberSecond, 3),
    w === undefined ? '—' : `${(w.cpuShare * 100).toFixed(1)} %`,
    w === undefined ? '—' : fixed(w.packetsPerSecond / swim.members, 2),
    fixed(w?.bytesPerPacket, 0),
    w === undefined ? '—' : lagCell(w),
    `${swim.suspectsBefore} / ${swim.deathsBefore}`,
    w === undefined ? '—' : `${w.suspects} / ${w.deaths}`,
    mib(w?.rssBytes),
    verdict,
  ];
}

function memberlistCells(members: number, run: GoRun | string): string[] {
  if (typeof run === 'string') return [String(members), 'memberlist (Go)', 'joins', run, '—', '—', '—', '—', 'n/a', '—', '—', '—', 'n/a'];
  const w = run.window;
  const formed = run.error !== undefined ? `**${run.error}**` : `${run.converged ? 'converged' : '**NOT converged**'} in ${seconds(run.convergeMs)}`;
  return [
    String(members),
    `memberlist (${run.goVersion})`,
    run.formation ?? 'joins',
    formed,
    fixed(w?.cpuMsPerMemberSecond, 3),
    w === null ? '—' : `${(w.cpuShare * 100).toFixed(1)} %`,
    w === null ? '—' : fixed(w.packetsPerSecond / run.members, 2),
    fixed(w?.bytesPerPacket, 0),
    'n/a (goroutines)',
    `— / ${run.deathsBefore}`,
    w === null ? '—' : `— / ${w.deaths}`,
    mib(w?.rssBytes),
    'n/a',
  ];
}

const HEADER = [
  'members',
  'implementation',
  'formation',
  'formed',
  'CPU per member per second, ms',
  'CPU, share of one core',
  'packets per member per second',
  'bytes per packet',
  'loop delay p50 / p99 / max, ms',
  'suspect / dead before the window',
  'suspect / dead in the window',
  'RSS, MiB',
  `loop p99 < ${MAX_LAG_P99_MS} ms`,
];

export function udpScaleTable(result: UdpScaleResult): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `| ${HEADER.map((_, i) => (i < 4 ? '---' : '---:')).join(' | ')} |`];
  for (const row of result.rows) {
    lines.push(`| ${swimCells(row).join(' | ')} |`);
    if (row.memberlist !== undefined) lines.push(`| ${memberlistCells(row.members, row.memberlist).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** CPU per member per second, memberlist's over ours, per size where both were measured. */
export function cpuRatios(result: UdpScaleResult): Array<{ readonly members: number; readonly ratio: number }> {
  return result.rows.flatMap((row) => {
    const ours = row.swim.window?.cpuMsPerMemberSecond;
    const theirs = typeof row.memberlist === 'object' ? row.memberlist.window?.cpuMsPerMemberSecond : undefined;
    return ours === undefined || theirs === undefined || ours === 0 ? [] : [{ members: row.members, ratio: ours / theirs }];
  });
}

export function udpScaleSummary(result: UdpScaleResult): string {
  const ratios = cpuRatios(result).map((r) => `${r.members}: ${r.ratio.toFixed(2)}x`);
  return `${udpScaleTable(result)}\n${ratios.length === 0 ? '' : `\nCPU per member per second, @swim / memberlist: ${ratios.join(', ')}\n`}`;
}

/** How our clusters were formed, in words. */
function formationText(params: UdpScaleResult['params']): string {
  return params.formation === 'pre-formed'
    ? `**pre-formed**: all members created first (each binding its own port) on a start gate (time stands, no timer fires), then every
member preloaded (\`Member.preload\`) with the list of all (name, real address, incarnation), then the members started
${START_SPREAD_PER_MEMBER_MS} ms apart, so the cluster is converged at once, nothing is gossiped while it forms, and it is quiet once each member's own
first alive is out`
    : `grown by **joins**: ten joins at a time through member 0 and a random older member with a ${params.joinPauseMs} ms pause after
each batch (each newcomer is gossiped to every member: n² updates)`;
}

export function udpScaleMarkdown(result: UdpScaleResult, info: RunInfo): string {
  const { params, machine, source } = result;
  const code =
    source === undefined ? '' : `Code: commit ${source.commit}, ${source.uncommitted.length === 0 ? 'no uncommitted changes to the bench\'s sources' : `uncommitted changes to ${source.uncommitted.join(', ')}`}  \n`;
  return `# Members per process over real UDP (issue 15)

Command: \`${info.command}\`  
Date: ${info.date}  
${code}Node ${info.node}, ${machine.cpus} x ${machine.cpuModel}, wall time ${seconds(info.wallMs)}  
Machine load average (1 min) at the start and the end: ${machine.loadAverage.map((l) => l.toFixed(2)).join(' and ')}

Per size, one cluster at a time, each in a process of its own: @swim members (LAN preset) on 127.0.0.1, each on its own UDP + TCP
transport (packages/transport-udp/bench/cluster.ts, the crypto bench's plain cluster), ${formationText(params)};
converged (every member sees every member alive; at most ${params.convergeTimeoutSeconds} s), settled ${params.settleSeconds} s, then measured ${params.seconds} s.${
    params.memberlist
      ? ` memberlist: the same sizes in one Go process
(apps/bench/go/memberlist-host: memberlist's DefaultLANConfig, NetTransport on a free port per member, packets counted at the
transport), grown by joins (memberlist has no preload): ten Join calls at a time, each through member 0 and a random older member,
with a ${params.joinPauseMs} ms pause after each batch${params.memberlistFormation === 'paced' ? ', then waiting until every member counts every member before the next batch (paced)' : ''};
its "dead" counts NotifyLeave (memberlist reports no suspicion to a delegate).`
      : ''
  }
CPU: the process's user + system time over the window (every thread), per member per second. Event-loop delay (Node only):
perf_hooks.monitorEventLoopDelay minus its 10 ms resolution. RSS: the process's resident set at the end of the window. The machine
is shared with other work (see the load average): figures move from run to run.

${udpScaleSummary(result)}`;
}

export function udpScaleJson(result: UdpScaleResult, info: RunInfo): unknown {
  return { ...result, command: info.command, date: info.date, node: info.node, wallMs: Math.round(info.wallMs), cpuRatios: cpuRatios(result) };
}
