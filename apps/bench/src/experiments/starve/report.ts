import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { formatDuration } from '../../stats.js';
import type { RunInfo } from '../index.js';
import { lifeguardProfileDescription } from '../lifeguard/profiles.js';
import { agentOverrides, type StarveResult } from './run.js';
import { lifeguardProfileConfig } from '../lifeguard/profiles.js';

/** What a starved agent gets between stalls. */
function runText(params: StarveResult['params']): string {
  const share = `${((100 * params.runMs) / (params.stopMs + params.runMs)).toFixed(0)}% of the time running`;
  if (params.mode === 'sigstop') return `SIGCONT for ${params.runMs} ms (${share})`;
  return params.runMs === 0 ? 'one turn of its event loop (due timers, then the packets already waiting)' : `running for ${params.runMs} ms (${share})`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

/** A count results written before it existed lack. */
function optional(n: number | undefined): string {
  return n === undefined ? '—' : String(n);
}

/** k vs FP / FP- per profile. */
function kTable(result: StarveResult): string {
  const { profiles } = result.params;
  const ks = [...new Set(result.cells.map((c) => c.k))];
  return table(
    ['k starved', ...profiles.flatMap((p) => [`${p} FP`, `${p} FP-`])],
    ks.map((k) => [
      `${k} of ${result.params.nodes}`,
      ...profiles.flatMap((p) => {
        const cell = result.cells.find((c) => c.k === k && c.profile === p);
        return cell === undefined ? ['—', '—'] : [String(cell.fp), String(cell.fpMinus)];
      }),
    ]),
  );
}

export function starveSummary(result: StarveResult): string {
  return kTable(result);
}

export function starveMarkdown(result: StarveResult, info: RunInfo): string {
  const { params } = result;
  const lines = [
    '# CPU-starved agents (real processes)',
    '',
    `Command: \`${info.command}\`  `,
    `Date: ${info.date}  `,
    `Node ${info.node}, wall time ${formatDuration(info.wallMs)}`,
    '',
    `The shape of Figure 1 of the Lifeguard paper (Dadgar, Phillips, Currey, arXiv 1707.00788, §II: 100 VMs running Consul, 1-32 of them starved by \`stress\`; plain SWIM ` +
      'shows false positives from 1 starved member and hundreds of FP- from 4; Lifeguard none until 16, no FP- until 32) with real `swim agent` processes on 127.0.0.1 of one 2-core machine.',
    '',
    `- ${params.nodes} agents, LAN timing (probe every 1 s, probe timeout 500 ms), suspicion multiplier 5; one fresh cluster per (profile, k).`,
    `- k agents starved: ${params.mode === 'block' ? 'the event loop blocked' : 'SIGSTOP'} for ${params.stopMs} ms, then ${runText(params)}, over and over, each on its own phase, for ${params.seconds} s; counting goes on ${params.tailSeconds} s after. ` +
      (params.mode === 'block'
        ? 'The block is a preloaded hook in the agent (Atomics.wait inside a timer callback: no CPU spent, the agent\'s code unchanged): packets wait in the socket buffer, and when the block ends the timers that came due run before those packets are read, as in a process starved of CPU. ' +
          '(With SIGSTOP instead, a continued Node process reads the waiting packets first: the late ack of its last probe, the refutations of its suspicions, so it hardly ever suspects anyone; `--mode sigstop`.)'
        : 'A stopped agent\'s packets wait in its socket buffer; once continued, Node reads them before its overdue timers run, so the late ack of its last probe and refutations still count.'),
    '- FP: a dead event about an agent never starved, in any agent\'s log; FP-: such an event in the log of an agent never starved either.',
    '- Per cell also: `FP at starved` (raised by a starved agent) and `FP verdicts` (its own suspicion timer\'s, not told by gossip); suspect events; what the kernel shows of the agents\' UDP sockets ' +
      '(datagrams dropped because a receive buffer was full, and the most bytes seen waiting in one socket, sampled every 500 ms); and the stalls and the share of the time the starved loops were blocked, as the hook measured them. ' +
      'A starved agent takes in little: libuv reads at most 32 datagrams each time a UDP socket is readable (uv__udp_io), so one loop turn every 2 s reads at most 16 a second, and the rest waits in the socket. ' +
      'News about the agent itself (an accusation to refute) and answers to its own questions (a refutation of its own suspicion) then reach it seconds late.',
    '',
    '## k vs FP and FP-',
    '',
    kTable(result),
    '',
    '## Cells',
    '',
    table(
      ['profile', 'k', 'starved', 'FP', 'FP-', 'FP at starved', 'FP verdicts', 'deaths of starved (at others)', 'suspicions of never-starved', 'suspicions of starved (at others)', 'UDP drops at starved / others', 'most bytes waiting in a socket: starved / others', 'FP before starving', 'stops', 'loop blocked', 'wall'],
      result.cells.map((c) => [
        c.profile,
        String(c.k),
        c.starvedNames.join(', ') || '—',
        String(c.fp),
        String(c.fpMinus),
        String(c.fpAtStarved),
        String(c.fpVerdicts),
        String(c.starvedDeaths),
        optional(c.suspectedHealthy),
        optional(c.suspectedStarved),
        c.udpDrops === undefined ? '—' : `${c.udpDrops.starved} / ${c.udpDrops.others}`,
        c.udpBacklog === undefined ? '—' : `${kib(c.udpBacklog.starved)} / ${kib(c.udpBacklog.others)}`,
        String(c.fpBefore),
        String(c.stops),
        c.blockedShare === undefined ? '—' : `${(100 * c.blockedShare).toFixed(1)}%`,
        formatDuration(c.wallMs),
      ]),
    ),
    '',
    '## Profiles',
    '',
    ...params.profiles.map((p) => `- \`${p}\`: ${lifeguardProfileDescription(p)}; agent overrides: ${Object.entries(agentOverrides(lifeguardProfileConfig(p))).map(([k, v]) => `${k}=${v}`).join(' ')}`),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

export function starveJson(result: StarveResult, info: RunInfo): Record<string, unknown> {
  return {
    ...provenance('starve', info),
    settings: Object.fromEntries(result.params.profiles.map((p) => [p, { description: lifeguardProfileDescription(p), agentOverrides: agentOverrides(lifeguardProfileConfig(p)) }])),
    params: result.params,
    cells: result.cells,
  };
}

/** The result back from {@link starveJson}'s document (for --render). */
export function starveResultFromJson(document: Record<string, unknown>): StarveResult {
  return { experiment: 'starve', params: document['params'] as StarveResult['params'], cells: document['cells'] as StarveResult['cells'] };
}
