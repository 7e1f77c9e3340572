/**
 * A Serf key command's outcome printed as `serf keys` prints it (serf cmd/serf/command/keys.go):
 * `==> ` info lines, one columnized `failed:  NODE  MESSAGE` line per member that reported
 * something when the command failed, then Serf's error; exit code 1 on any failure. Lines are
 * sorted where Serf prints them in Go's random map order.
 */
import type { SerfKeyOp, SerfKeyReport } from '@swim/adapter-memberlist';

const WORDING: Readonly<Record<SerfKeyOp, { readonly start: string; readonly done: string; readonly error: string }>> = {
  list: { start: 'Asking all members for installed keys...', done: 'Keys gathered, listing cluster keys...', error: 'Failed to gather member keys' },
  install: { start: 'Installing key on all members...', done: 'Successfully installed key!', error: 'Error installing key' },
  use: { start: 'Changing primary key on all members...', done: 'Successfully changed primary key!', error: 'Error changing primary key' },
  remove: { start: 'Removing key on all members...', done: 'Successfully removed key!', error: 'Error removing key' },
};

export function formatSerfKeys(report: SerfKeyReport): { readonly text: string; readonly exitCode: number } {
  const wording = WORDING[report.op];
  const lines = [`==> ${wording.start}`];
  if (report.error !== undefined) {
    const failed = Object.keys(report.messages)
      .sort()
      .map((node) => ['failed:', escape(node), escape(report.messages[node]!)]);
    if (failed.length > 0) lines.push(...columnize(failed));
    lines.push('', `${wording.error}: ${report.error}`);
    return { text: lines.join('\n'), exitCode: 1 };
  }
  lines.push(`==> ${wording.done}`);
  if (report.op === 'list') {
    lines.push('', ...columnize(Object.keys(report.keys).sort().map((key) => [escape(key), `[${report.keys[key]}/${report.numNodes}]`])));
  }
  return { text: lines.join('\n'), exitCode: 0 };
}

/** ryanuber/columnize SimpleFormat: every column but the last padded to its widest cell, joined by two spaces. */
function columnize(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

// Names and messages come from the cluster: control and bidirectional characters are shown escaped.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
function escape(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
