import type { KeyOpReport } from './run.js';

/**
 * The report as text for a terminal (lines joined by newlines, no trailing one), like `serf keys -list`:
 *
 * ```
 * 3 of 3 members answered, 3 succeeded
 * KEY  [3/3] (primary on 3)
 *   node-x: error
 * ```
 *
 * Keys most used as primary first, then most held. Names and error texts come from the cluster,
 * so control and bidirectional-override characters are shown escaped rather than sent to the terminal.
 */
export function formatKeyOpReport(report: KeyOpReport): string {
  const n = report.members;
  const lines = [`${report.answered} of ${n} member${n === 1 ? '' : 's'} answered, ${report.succeeded} succeeded`];
  const keys = Object.keys(report.keys).sort(
    (a, b) => (report.primaries[b] ?? 0) - (report.primaries[a] ?? 0) || (report.keys[b] ?? 0) - (report.keys[a] ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const key of keys) {
    const primary = report.primaries[key] ?? 0;
    lines.push(`${escape(key)}  [${report.keys[key] ?? 0}/${n}]${primary > 0 ? ` (primary on ${primary})` : ''}`);
  }
  for (const failure of report.failures) lines.push(`  ${escape(failure.name)}: ${escape(failure.error)}`);
  return lines.join('\n');
}

// C0 and C1 controls (ANSI escapes start with ESC or CSI), line and paragraph separators, and the
// bidirectional overrides and isolates that can reorder what a terminal shows.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escape(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
