/** Reading the Prometheus text format back in tests, and Debian's promtool. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The series lines of a text exposition (label values unescaped), and each family's TYPE. */
export function parseExposition(text: string): { readonly series: Series[]; readonly types: Map<string, string> } {
  const series: Series[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a series line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    series.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { series, types };
}

export function valueOf(series: readonly Series[], name: string, labels: Record<string, string> = {}): number | undefined {
  return series.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const PROMTOOL = '/usr/bin/promtool';
const MISSING = `Debian's promtool (package prometheus) is not installed at ${PROMTOOL}`;

/** Why the promtool checks are skipped: only when it is missing and SWIM_SKIP_PROMETHEUS=1 says so. */
export const promtoolSkipReason: string | undefined = !existsSync(PROMTOOL) && process.env['SWIM_SKIP_PROMETHEUS'] === '1' ? `${MISSING} and SWIM_SKIP_PROMETHEUS=1` : undefined;

/** `promtool check metrics` on `text`: its exit status and output (lint problems are on stdout/stderr). */
export function promtoolCheckMetrics(text: string): { readonly status: number | null; readonly output: string } {
  if (!existsSync(PROMTOOL)) throw new Error(`${MISSING}. Install it (apt-get install prometheus; .ci/run does) or set SWIM_SKIP_PROMETHEUS=1 to skip.`);
  const result = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
