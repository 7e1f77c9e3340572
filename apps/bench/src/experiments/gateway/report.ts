/** `pnpm bench gateway`'s report: per size the gateway's cost per browser member and the cluster's view of the tabs; Markdown, JSON and a chart. */
import { barChart } from '../../report/chart.js';
import { table } from '../../report/table.js';
import type { RunInfo } from '../index.js';
import { MAX_LOOP_P99_MS, type ChromiumRun, type GatewayResult, type GatewaySizeRun, type PhaseFigures } from './result.js';
import { countByState, maxOf, perMemberSecond, timedText } from './summary.js';

const fixed = (v: number | undefined, digits: number): string => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));
const secs = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
const pair = (a: string, b: string) => `${a} / ${b}`;

/** The figures of a phase per browser member, as the report states them. */
export function phaseRates(p: PhaseFigures | undefined) {
  if (p === undefined) return undefined;
  const s = p.gateway.seconds;
  return {
    gatewayCpuMsPerMemberSecond: perMemberSecond(p.gateway.cpuMs, p.members, s),
    gatewayCpuShare: s > 0 ? p.gateway.cpuMs / 1000 / s : NaN,
    gatewayLoopP99Ms: p.gateway.loopP99Ms,
    datagramsPerMemberSecond: perMemberSecond(p.relay.packetsIn + p.relay.packetsOut, p.members, s),
    bytesPerMemberSecond: perMemberSecond(p.bytes.bytesSent + p.bytes.bytesReceived, p.members, s),
    agentCpuMsPerMemberSecond: perMemberSecond(p.agents.cpuMs, p.agentMembers, p.agents.seconds),
    clientLoopP99Ms: maxOf(p.clients.map((c) => c.loopP99Ms)),
    /** The bench's own load on the machine: the client processes' and the agents' CPU, in cores. */
    clientsCpuShare: s > 0 ? p.clients.reduce((n, c) => n + c.cpuMs, 0) / 1000 / s : NaN,
    agentsCpuShare: p.agents.seconds > 0 ? p.agents.cpuMs / 1000 / p.agents.seconds : NaN,
    packetsDropped: p.relay.packetsDropped,
  };
}

function costRow(run: GatewaySizeRun): string[] {
  const j = phaseRates(run.join);
  const q = phaseRates(run.quiet);
  const rssPerMember = run.quiet === undefined || run.joined === 0 ? undefined : (run.quiet.gateway.rssBytes - run.rssBeforeBytes) / run.joined / 1024;
  return [
    String(run.clients),
    String(run.joined),
    pair(fixed(j?.gatewayCpuMsPerMemberSecond, 3), fixed(q?.gatewayCpuMsPerMemberSecond, 3)),
    pair(fixed(j && j.gatewayCpuShare * 100, 1), fixed(q && q.gatewayCpuShare * 100, 1)) + ' %',
    pair(fixed(j?.gatewayLoopP99Ms, 1), fixed(q?.gatewayLoopP99Ms, 1)),
    fixed(rssPerMember, 1),
    pair(fixed(j?.datagramsPerMemberSecond, 2), fixed(q?.datagramsPerMemberSecond, 2)),
    pair(fixed(j?.bytesPerMemberSecond, 0), fixed(q?.bytesPerMemberSecond, 0)),
    pair(fixed(j?.clientLoopP99Ms, 1), fixed(q?.clientLoopP99Ms, 1)),
    fixed(q?.agentCpuMsPerMemberSecond, 3),
    pair(fixed(j && j.clientsCpuShare * 100, 0), fixed(q && q.clientsCpuShare * 100, 0)) + ' %',
  ];
}

const COST_HEAD = [
  'browser members',
  'joined',
  'gateway CPU per member per s, ms (join / quiet)',
  'gateway CPU, share of one core',
  'gateway loop p99, ms',
  'gateway RSS per member, KiB',
  'datagrams relayed per member per s',
  'WebSocket payload bytes per member per s',
  'client processes loop p99 (worst), ms',
  'UDP agent CPU per member per s, ms (quiet)',
  'client processes CPU, share of one core (sum)',
];

function liveRow(run: GatewaySizeRun): string[] {
  const f = countByState(run.falseEvents);
  const loops = [run.join?.gateway.loopP99Ms, run.quiet?.gateway.loopP99Ms, ...(run.join?.clients ?? []).map((c) => c.loopP99Ms), ...(run.quiet?.clients ?? []).map((c) => c.loopP99Ms)];
  const pass = run.error === undefined && run.joined === run.clients && run.allAliveMs !== undefined && f.suspect + f.dead + f.left === 0 && loops.every((l) => l !== undefined && l < MAX_LOOP_P99_MS);
  return [
    String(run.clients),
    secs(run.allAliveMs),
    `${f.suspect} / ${f.dead} / ${f.left}`,
    timedText(run.burst),
    timedText(run.close),
    timedText(run.cut),
    secs(run.wallMs),
    pair(run.load[0].toFixed(2), run.load[1].toFixed(2)),
    pass ? 'met' : '**missed**',
  ];
}

const LIVE_HEAD = ['browser members', 'all alive at every agent after', 'suspect / dead / left about live tabs', 'burst → alive', 'close → left', 'cut → dead', 'run time', 'load (1 min) start / end', `target (all in, 0 false, loop p99 < ${MAX_LOOP_P99_MS} ms)`];

function problems(run: GatewaySizeRun): string[] {
  const out: string[] = [];
  const failures = Object.entries(run.joinFailures);
  if (failures.length > 0) out.push(`- ${run.clients}: joins failed: ${failures.map(([m, n]) => `${n} × "${m}"`).join('; ')}`);
  const r = run.join?.relay;
  if (r !== undefined && r.refusedCapacity + r.refusedIpLimit + r.refusedSessions + r.helloTimeouts + r.joinTimeouts + r.rateLimited > 0) {
    out.push(`- ${run.clients}: gateway refusals while joining: capacity ${r.refusedCapacity}, per-IP ${r.refusedIpLimit}, sessions ${r.refusedSessions}, hello timeouts ${r.helloTimeouts}, join timeouts ${r.joinTimeouts}, rate-limited ${r.rateLimited}`);
  }
  const dropped = (run.join?.relay.packetsDropped ?? 0) + (run.quiet?.relay.packetsDropped ?? 0);
  if (dropped > 0) out.push(`- ${run.clients}: packets dropped at relays (client gone or over its buffer): ${dropped}`);
  if (run.error !== undefined) out.push(`- ${run.clients}: **stopped**: ${run.error}`);
  return out;
}

function chromiumText(c: ChromiumRun | string | undefined): string {
  if (c === undefined) return 'Not run (--chromium-tabs 0).';
  if (typeof c === 'string') return `Not run: ${c}`;
  return table(
    ['Chromium pages', 'joined', 'all alive at every agent after', 'suspect / dead / left about live pages', 'close (leave, close) → left', 'cut (page.close without leave) → dead'],
    [[String(c.tabs), String(c.joined), secs(c.allAliveMs), String(c.falseEvents), timedText(c.close), timedText(c.cut)]],
  ) + (c.error === undefined ? '' : `\n\nStopped: ${c.error}`);
}

export function gatewaySummary(result: GatewayResult): string {
  const notes = result.runs.flatMap(problems);
  return `${table(COST_HEAD, result.runs.map(costRow))}

${table(LIVE_HEAD, result.runs.map(liveRow))}
${notes.length === 0 ? '' : `\n${notes.join('\n')}\n`}
${chromiumText(result.chromium)}
`;
}

export function gatewayMarkdown(result: GatewayResult, info: RunInfo): string {
  const { params: p, machine, source } = result;
  const code = source === undefined ? '' : `Code: commit ${source.commit}${source.uncommitted.length === 0 ? '' : `, uncommitted changes to ${source.uncommitted.join(', ')}`}  \n`;
  return `# Browser members through one WebSocket gateway (issue 31)

Command: \`${info.command}\`  
Date: ${info.date}  
${code}Node ${info.node}, ${machine.cpus} x ${machine.cpuModel}, wall time ${secs(info.wallMs)}  
Machine load average (1 min) at the start and the end: ${machine.loadAverage.map((l) => l.toFixed(2)).join(' and ')} (the machine is shared: figures move with it)

Per size, fresh processes on 127.0.0.1: ${p.udpAgents} UDP agents (@swim/runtime members, lan preset, one process), one gateway
process (createWsGateway and its own UDP member, the seed; session caps and rate limit raised since every client is on
127.0.0.1) and ${p.clientProcesses} client processes running the browser members: the package's browser client (root entry,
connectWsTransport, WebSocket from \`ws\`) and a Member with the lan preset, as a page runs them. Members join at
${p.joinRate}/s (order and process by seed ${p.seed}), then ${p.holdSeconds} s quiet; then ${p.burst} tabs join within one second (burst), ${p.closeTabs}
tabs leave and close as leaveOnPageHide does (close → left), and a client process holding ${p.cutTabs} tabs is stopped with
SIGSTOP (cut → dead): its TCP connections stay open and silent, the nearest to a network loss (no FIN reaches the
gateway; terminating the socket would tell the gateway at once).

"join" is the window from the first join until every agent saw every joined tab alive; "quiet" the ${p.holdSeconds} s after.
CPU: process.cpuUsage of the process over the window, per browser member per second (the UDP agents' per UDP member per
second, each of them a member of the same cluster). Loop p99: perf_hooks.monitorEventLoopDelay less its 10 ms resolution.
RSS per member: the gateway's RSS at the end of the quiet window less its RSS before any client, over the members joined.
Datagrams relayed: the gateway's packetsIn + packetsOut. Bytes: packet payloads the clients sent and received (their
counters), without WebSocket framing. Suspect / dead / left: events the agents saw about tabs that were neither closed
nor cut, from the first join to the end of the run. Each size is bounded (joining time + hold + 330 s, each phase by its own bound) so a failing size ends.

${gatewaySummary(result)}`;
}

/** False events written out per run in the JSON (all are counted). */
const FALSE_EVENTS_KEPT = 50;

export function gatewayJson(result: GatewayResult, info: RunInfo): unknown {
  return {
    ...result,
    // Thousands of events at a failing size: their counts, and the first 50 of each run as a sample.
    runs: result.runs.map((run) => ({ ...run, falseEvents: run.falseEvents.slice(0, FALSE_EVENTS_KEPT), falseEventsTotal: run.falseEvents.length })),
    command: info.command,
    date: info.date,
    node: info.node,
    wallMs: Math.round(info.wallMs),
    rates: result.runs.map((run) => ({ clients: run.clients, join: phaseRates(run.join), quiet: phaseRates(run.quiet), falseEvents: countByState(run.falseEvents) })),
  };
}

export function gatewaySvg(result: GatewayResult): string {
  return barChart({
    title: 'Gateway CPU per browser member per second',
    subtitle: `ms; beside a UDP member's (agents' process, quiet); ${result.params.joinRate}/s joins, ${result.params.holdSeconds} s quiet`,
    yLabel: 'ms per member per second',
    yScale: 'linear',
    series: [
      { name: 'gateway, joining', color: '#d62728' },
      { name: 'gateway, quiet', color: '#1f77b4' },
      { name: 'UDP member, quiet', color: '#2ca02c' },
    ],
    groups: result.runs.map((run) => {
      const j = phaseRates(run.join);
      const q = phaseRates(run.quiet);
      return {
        label: `${run.clients} tabs${run.joined < run.clients ? ` (${run.joined} in)` : ''}`,
        bars: [
          { series: 'gateway, joining', value: j?.gatewayCpuMsPerMemberSecond ?? NaN },
          { series: 'gateway, quiet', value: q?.gatewayCpuMsPerMemberSecond ?? NaN },
          { series: 'UDP member, quiet', value: q?.agentCpuMsPerMemberSecond ?? NaN },
        ],
      };
    }),
  });
}

