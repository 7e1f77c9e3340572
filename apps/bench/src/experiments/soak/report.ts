/** The soak's report: summary tables (Markdown), the JSON document, and an SVG timeline. */
import { escapeXml } from '../../report/chart.js';
import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { max, quantile } from '../../stats.js';
import { formatPerHour, invariantTable } from './checker/index.js';
import type { RunInfo } from '../index.js';
import type { SoakResult } from './run.js';
import { NEMESIS_KINDS } from './timeline.js';

const s = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)}`;


/** Each (kill, observer) pair's time from the kill to the observer's first dead or left about the killed agent, while it was down. */
export function detectionPoints(r: SoakResult): Array<{ actionId: number; at: number; observer: string; subject: string; latencyMs: number }> {
  const points: Array<{ actionId: number; at: number; observer: string; subject: string; latencyMs: number }> = [];
  for (const kill of r.actions.filter((a) => a.kind === 'kill')) {
    const subject = kill.targets[0]!;
    const upAt = kill.end ?? r.runEnd;
    const seen = new Set<string>();
    for (const o of r.observations) {
      if (o.subject !== subject || o.at < kill.start || o.at > upAt || seen.has(o.observer) || (o.kind !== 'dead' && o.kind !== 'left')) continue;
      seen.add(o.observer);
      points.push({ actionId: kill.id, at: kill.start, observer: o.observer, subject, latencyMs: o.at - kill.start });
    }
  }
  return points;
}

const pct = (p: { count: number; p50: number; p90: number; p99: number; max: number }) => (p.count === 0 ? ['-', '-', '-', '-'] : [s(p.p50), s(p.p90), s(p.p99), s(p.max)]);

export function soakSummary(r: SoakResult): string {
  const c = r.check;
  const faults = table(
    ['fault', 'count', 'agents hit', 'median length'],
    NEMESIS_KINDS.map((k) => {
      const acts = r.actions.filter((a) => a.kind === k);
      const lengths = acts.filter((a) => a.end !== undefined).map((a) => a.end! - a.start);
      return [k, String(acts.length), String(acts.reduce((n, a) => n + a.targets.length, 0)), lengths.length === 0 ? '-' : s(quantile(lengths, 0.5))];
    }),
  );
  const inv = c.invariants;
  const detections = table(
    ['detection of kill -9 (observer, killed agent)', 'pairs owed', 'late or missed', 'not owed (back before the bound)', 'p50', 'p90', 'p99', 'max', 'bound'],
    [['seen dead or left', String(inv[0]!.checked), String(inv[0]!.violations), String(c.detection.notRequired), ...pct(c.detection.latencyMs), s(r.boundMs)]],
  );
  const fd = c.falseDeaths;
  const falseDeaths = table(
    ['false death verdicts', 'count', 'since that fault p50', 'other members that took it (p50)'],
    [
      ['all verdicts (own suspicion timed out)', String(fd.verdicts), '', ''],
      ['about a process killed within the bound (set apart)', String(fd.previousLife), '', ''],
      ...fd.byCause.map((k) => [`false: ${k.cause}`, String(k.count), k.sinceFaultMs.count === 0 || Number.isNaN(k.sinceFaultMs.p50) ? '-' : s(k.sinceFaultMs.p50), Number.isNaN(k.reached.p50) ? '-' : String(k.reached.p50)]),
    ],
  );
  const conv = c.convergence;
  const convergence = table(
    ['convergence (every running agent sees every other alive)', 'measured', 'late', 'superseded', 'censored', 'p50', 'p90', 'p99', 'max', 'bound'],
    [['from the event streams, after heals, restarts, rejoins, rotations', String(conv.latencyMs.count), String(inv[2]!.violations), String(conv.superseded), String(conv.censored), ...pct(conv.latencyMs), s(r.convergenceLimitMs)]],
  );
  const polled = ['initial', 'kill', 'leave', 'ns-restart', 'cut', 'rotate', 'final'].map((k) => {
    const rs = r.convergence.filter((x) => x.kind === k);
    const ms = rs.filter((x) => x.ms !== undefined).map((x) => x.ms!);
    return [k, String(ms.length), String(rs.filter((x) => x.censored).length), String(rs.filter((x) => !x.censored && x.ms === undefined).length), ms.length === 0 ? '-' : s(quantile(ms, 0.5)), ms.length === 0 ? '-' : s(max(ms))];
  });
  const polledTable = table(['convergence through GET /members after', 'measured', 'censored', 'not within limit', 'p50', 'max'], polled);
  const slopes = table(
    ['resource slope, last 3/4 (long-lived processes)', 'agents', 'worst agent', 'worst per hour', 'bound per hour', 'over'],
    c.slopes.map((x) => [x.metric, String(x.members), x.worstMember, formatPerHour(x.metric, x.worstPerHour), formatPerHour(x.metric, x.boundPerHour), String(x.violations)]),
  );
  const unexpected = r.exits.filter((e) => e.expected === undefined);
  const fromLog = r.observations.filter((o) => o.source === 'log').length;
  const counts = [
    `unexpected exits: ${unexpected.length}${unexpected.length === 0 ? '' : ` (${unexpected.slice(0, 3).map((e) => `${e.agent} at ${s(e.at)} code ${e.code} signal ${e.signal}: ${e.stderr.slice(-200)}`).join('; ')})`}; contained errors in the streams: ${r.containedErrors.length}; Prometheus (max_over_time of swim_contained_errors_total, summed): ${r.promContainedErrors}`,
    `observations: ${r.observations.length} (${fromLog} from the agents' logs before their monitor stream opened); monitor streams lost while their agent ran: ${r.monitorLosses}`,
  ];
  return [invariantTable(c), '', faults, '', detections, '', falseDeaths, '', convergence, '', polledTable, '', slopes, '', ...counts.map((x) => `- ${x}`)].join('\n');
}

export function soakMarkdown(r: SoakResult, info: RunInfo): string {
  const loads = r.load.map((l) => l.load[0]);
  return [
    '# Soak: real agents under a seeded nemesis',
    '',
    `Command: \`${info.command}\``,
    '',
    `Code version: ${r.gitSha}; Node ${info.node}; started ${r.startedAt}; wall time ${s(info.wallMs)}.`,
    '',
    `Network: **${r.network.mode}**${r.network.why === undefined ? '' : ` (namespaces not used: ${r.network.why})`}; groups ${r.network.groups.map((g) => `${g.name} ${g.agents} agents on ${g.host}${g.netns === undefined ? '' : ` (${g.netns})`}`).join(', ')}. The nemesis cuts off and restarts only the last group, sized to its cap of ${r.cap} agents affected at once.`,
    '',
    `Agents: ${r.params.agents} \`swim agent\` processes (apps/cli/dist/main.js), encrypted (--encrypt, --keyring-file), --metrics scraped by Prometheus, every other one with --snapshot; ${r.longLived.length} never killed, left or restarted (${r.longLived.join(', ')}: paused at most, their processes run throughout and invariant 5 judges their slopes); config ${Object.entries(r.config).map(([k, x]) => `${k}=${x}`).join(', ')} (lan otherwise). Failure detection bound (failureDetectionBoundMs for ${r.params.agents} members): ${r.boundMs} ms; convergence limit ${r.convergenceLimitMs} ms.`,
    '',
    `Seed ${r.params.seed}; nemesis for ${s(r.params.durationMs)}, time scale ${r.params.timeScale}; run ${s(r.runEnd)} in all.`,
    '',
    `Machine load (1-minute loadavg, sampled every ${s(r.params.sampleEveryMs)}): median ${loads.length === 0 ? '-' : quantile(loads, 0.5).toFixed(2)}, max ${loads.length === 0 ? '-' : max(loads).toFixed(2)}.`,
    '',
    '## Summary',
    '',
    soakSummary(r),
    '',
    '## Prometheus (queried through its HTTP API at the end)',
    '',
    table(['query', 'value'], Object.entries(r.prometheus).map(([k, x]) => [k, String(x)])),
    '',
    '## Nemesis log',
    '',
    table(
      ['id', 'action', 'targets', 'start', 'end', 'detail'],
      r.actions.map((a) => [String(a.id), a.kind, a.targets.join(', ') || '-', s(a.start), s(a.end), JSON.stringify(a.detail).replace(/\\n\s*/g, ' ').slice(0, 160)]),
      ['r', 'l', 'l', 'r', 'r', 'l'],
    ),
    '',
    r.keptDir === undefined ? '' : `Evidence (agents' logs, nemesis log) kept in ${r.keptDir}.`,
    '',
  ].join('\n');
}

/** The JSON document; the observations themselves are in observations.jsonl beside it (they run to tens of MB in an hour). */
export function soakJson(r: SoakResult, info: RunInfo): Record<string, unknown> {
  const { observations, ...rest } = r;
  return { ...provenance('soak', info), ...rest, observations: { count: observations.length, fromLogs: observations.filter((o) => o.source === 'log').length, file: 'observations.jsonl' } };
}

/** Nemesis actions as bands (one row per kind), detection latencies as points, RSS per agent as lines. */
export function soakSvg(r: SoakResult): string {
  const W = 1100;
  const left = 90;
  const right = 20;
  const bandTop = 60;
  const rowH = 16;
  const bandsH = NEMESIS_KINDS.length * rowH;
  const plotH = 180;
  const detTop = bandTop + bandsH + 40;
  const rssTop = detTop + plotH + 50;
  const H = rssTop + plotH + 50;
  const end = Math.max(r.runEnd, 1);
  const x = (ms: number) => left + ((W - left - right) * ms) / end;
  const colors: Record<string, string> = { kill: '#d62728', stop: '#ff7f0e', cut: '#9467bd', leave: '#2ca02c', rotate: '#17becf', tags: '#7f7f7f', 'ns-restart': '#8c564b', forge: '#e377c2' };
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="11">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${left}" y="22" font-size="15" font-weight="600">Soak: ${r.params.agents} agents, seed ${r.params.seed}, ${escapeXml(r.network.mode)}, ${escapeXml(r.gitSha.slice(0, 12))}</text>`);
  parts.push(`<text x="${left}" y="40" fill="#555">nemesis actions (bands), detection latency of each kill -9 per observer (points; dashed: bound ${r.boundMs} ms), RSS per agent (lines)</text>`);
  NEMESIS_KINDS.forEach((k, i) => {
    const y = bandTop + i * rowH;
    parts.push(`<text x="${left - 6}" y="${y + 11}" text-anchor="end">${k}</text>`);
    for (const a of r.actions.filter((a) => a.kind === k)) {
      const x0 = x(a.start);
      const x1 = Math.max(x0 + 2, x(a.end ?? r.runEnd));
      parts.push(`<rect x="${x0.toFixed(1)}" y="${y + 2}" width="${(x1 - x0).toFixed(1)}" height="${rowH - 4}" fill="${colors[k]}" fill-opacity="0.6"><title>${escapeXml(`${a.id} ${k} ${a.targets.join(',')}`)}</title></rect>`);
    }
  });
  // Detection latencies.
  const lat = detectionPoints(r);
  const maxLat = Math.max(r.boundMs * 1.2, ...lat.map((d) => d.latencyMs));
  const yDet = (ms: number) => detTop + plotH - (plotH * ms) / maxLat;
  parts.push(`<text x="${left - 6}" y="${detTop - 8}" text-anchor="end" font-weight="600">detection (s)</text>`);
  parts.push(`<line x1="${left}" x2="${W - right}" y1="${detTop + plotH}" y2="${detTop + plotH}" stroke="#999"/>`);
  parts.push(`<line x1="${left}" x2="${W - right}" y1="${yDet(r.boundMs).toFixed(1)}" y2="${yDet(r.boundMs).toFixed(1)}" stroke="#d62728" stroke-dasharray="4 3"/>`);
  for (const t of [0, maxLat / 2, maxLat]) parts.push(`<text x="${left - 6}" y="${yDet(t).toFixed(1)}" text-anchor="end">${(t / 1000).toFixed(1)}</text>`);
  for (const d of lat) {
    parts.push(`<circle cx="${x(d.at).toFixed(1)}" cy="${yDet(d.latencyMs).toFixed(1)}" r="2.5" fill="${d.latencyMs > r.boundMs ? '#d62728' : '#1f77b4'}" fill-opacity="0.7"><title>${escapeXml(`${d.observer} saw ${d.subject} dead after ${d.latencyMs} ms`)}</title></circle>`);
  }
  // RSS lines.
  const agents = [...new Set(r.samples.map((x) => x.agent))];
  const maxRss = Math.max(1, ...r.samples.map((x) => x.rssBytes));
  const yRss = (b: number) => rssTop + plotH - (plotH * b) / maxRss;
  parts.push(`<text x="${left - 6}" y="${rssTop - 8}" text-anchor="end" font-weight="600">RSS (MiB)</text>`);
  parts.push(`<line x1="${left}" x2="${W - right}" y1="${rssTop + plotH}" y2="${rssTop + plotH}" stroke="#999"/>`);
  for (const t of [0, maxRss / 2, maxRss]) parts.push(`<text x="${left - 6}" y="${yRss(t).toFixed(1)}" text-anchor="end">${mb(t)}</text>`);
  agents.forEach((agent, i) => {
    const pts = r.samples.filter((x) => x.agent === agent);
    const hue = Math.round((360 * i) / Math.max(1, agents.length));
    const d = pts.map((p, j) => `${j === 0 || pts[j - 1]!.pid !== p.pid ? 'M' : 'L'}${x(p.at).toFixed(1)},${yRss(p.rssBytes).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="hsl(${hue},60%,45%)" stroke-width="1"><title>${escapeXml(agent)}</title></path>`);
  });
  // Time axis.
  const ticks = 10;
  for (let i = 0; i <= ticks; i++) {
    const ms = (end * i) / ticks;
    parts.push(`<text x="${x(ms).toFixed(1)}" y="${H - 20}" text-anchor="middle">${(ms / 60_000).toFixed(1)}</text>`);
  }
  parts.push(`<text x="${W / 2}" y="${H - 5}" text-anchor="middle">minutes since the start</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
