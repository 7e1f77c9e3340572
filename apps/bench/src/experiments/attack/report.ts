/** The attack suite's reports: Markdown tables (stdout and `--out`) and JSON with the provenance head. */
import type { RunInfo } from '../index.js';
import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { formatDuration } from '../../stats.js';
import type { ScenarioName, ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

export interface AttackResult {
  readonly experiment: 'attack';
  readonly params: { readonly scenarios: readonly ScenarioName[]; readonly quick: boolean; readonly sizes: AttackSizes };
  readonly scenarios: readonly ScenarioResult[];
}

export function failedChecks(result: AttackResult): number {
  return result.scenarios.reduce((n, s) => n + s.checks.filter((c) => !c.pass).length, 0);
}

/** One scenario: its figures, then its checks. */
export function scenarioMarkdown(s: ScenarioResult): string {
  return [
    `## ${s.title} (${formatDuration(s.wallMs)})`,
    table(['figure', 'value'], s.rows, ['l', 'l']),
    table(['check', 'measured', 'limit', ''], s.checks.map((c) => [c.what, c.value, c.limit, c.pass ? 'pass' : '**FAIL**']), ['l', 'l', 'l', 'l']),
  ].join('\n\n');
}

/** What `pnpm bench attack` prints: every scenario, then the count of failed checks. */
export function attackSummary(result: AttackResult): string {
  const failed = failedChecks(result);
  const total = result.scenarios.reduce((n, s) => n + s.checks.length, 0);
  return [...result.scenarios.map(scenarioMarkdown), `${total - failed} of ${total} checks pass${failed > 0 ? `, **${failed} FAIL**` : ''}.`].join('\n\n');
}

export function attackMarkdown(result: AttackResult, info: RunInfo): string {
  const head = [
    '# Attack suite: a stranger on 127.0.0.1 against real agents and a real gateway (issue 10)',
    [`Command: \`${info.command}\`  `, `Date: ${info.date}  `, `Node ${info.node}, wall time ${formatDuration(info.wallMs)}`].join('\n'),
    'The attacker is a separate process that is not a member: it forges packets with @swim/core\'s codec from 127.0.0.66, speaks the stream framing and the WebSocket protocol by hand. RSS is the kernel\'s (VmRSS, peak VmHWM); a stall is the longest gap between 10 ms timer ticks inside the process, counted while its main thread was on the CPU (the wall-clock gap is shown beside it).',
  ];
  return `${[...head, attackSummary(result)].join('\n\n')}\n`;
}

export function attackJson(result: AttackResult, info: RunInfo): Record<string, unknown> {
  return {
    ...provenance('attack', info),
    params: result.params,
    failedChecks: failedChecks(result),
    scenarios: result.scenarios.map((s) => ({ scenario: s.scenario, title: s.title, wallMs: Math.round(s.wallMs), figures: s.figures, checks: s.checks })),
  };
}
