/**
 * The compact live view for people without a browser: one line per member state symbol, counts,
 * and the latest events. On a terminal it redraws in place once a second; piped, it prints a
 * summary line whenever the summary changes.
 */
import type { ClusterState, DemoEvent } from './api.js';

const SYMBOL: Record<string, string> = { alive: '●', suspect: '◐', dead: '✖', left: '○' };
const COLOUR: Record<string, string> = { alive: '\x1b[32m', suspect: '\x1b[33m', dead: '\x1b[31m', left: '\x1b[90m' };
const RESET = '\x1b[0m';

/** `m1● m2◐ m3✖ ...` and counts, from the cluster's consensus; process faults are marked. */
export function summaryLine(state: ClusterState, colour: boolean): string {
  const counts: Record<string, number> = { alive: 0, suspect: 0, dead: 0, left: 0 };
  const faults = new Map<string, string | undefined>(state.members.map((m) => [m.name, m.process !== 'running' ? m.process : m.blackout ? 'cut off' : undefined]));
  for (const gateway of state.gateways) faults.set(gateway.name, gateway.process === 'killed' ? 'killed' : undefined);
  const cells = Object.entries(state.consensus)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([name, { state: s }]) => {
      counts[s] = (counts[s] ?? 0) + 1;
      const fault = faults.get(name);
      const symbol = colour ? `${COLOUR[s]}${SYMBOL[s]}${RESET}` : SYMBOL[s];
      return `${name}${symbol}${fault === undefined ? '' : `(${fault})`}`;
    });
  const tally = Object.entries(counts)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  return `${cells.join(' ')}  |  ${tally}${state.partitioned ? '  |  partitioned' : ''}`;
}

export interface TerminalView {
  update(state: ClusterState): void;
  event(event: DemoEvent): void;
  stop(): void;
}

export function terminalView(out: NodeJS.WriteStream): TerminalView {
  const tty = out.isTTY === true;
  const recent: string[] = [];
  let drawn = 0;
  let last = '';
  return {
    update(state) {
      const line = summaryLine(state, tty);
      if (!tty) {
        if (line !== last) out.write(`${new Date(state.time).toISOString().slice(11, 19)} ${line}\n`);
        last = line;
        return;
      }
      const lines = [line, ...recent.slice(-5).map((text) => `  ${text}`)];
      if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[J`);
      out.write(`${lines.join('\n')}\n`);
      drawn = lines.length;
    },
    event(event) {
      const text = `${new Date(event.time).toISOString().slice(11, 19)} ${event.text}`;
      if (tty) recent.push(text);
      else out.write(`${text}\n`);
      if (recent.length > 50) recent.shift();
    },
    stop() {},
  };
}
