/**
 * The live cluster's views besides the ring: who sees whom (the demo members', the gateways' and
 * this tab's views), a timeline of how many (observer, member) pairs are held alive, suspect and
 * dead, and the health score history of the member under the pointer. The page keeps the last
 * five minutes of the server's snapshots (one every half second) for the charts.
 */
import type { ClusterState } from '../src/api.js';
import { countStates, matrixRow, type MatrixRow, type ViewMatrix } from '../src/matrix-api.js';
import { lineChart, STATE_COLORS } from './chart.js';
import { renderMatrix } from './matrix.js';

const HISTORY_MS = 5 * 60_000;

export interface TabView {
  readonly name: string;
  readonly healthScore: number;
  readonly view: ReadonlyMap<string, { readonly state: 'alive' | 'suspect' | 'dead' | 'left'; readonly incarnation: number }>;
}

const matrixSvg = document.querySelector<SVGSVGElement>('#matrix')!;
const timeline = lineChart(document.querySelector<HTMLElement>('#timeline')!, {
  xLabel: 'seconds ago',
  height: 170,
  series: (['alive', 'suspect', 'dead'] as const).map((state) => ({ label: `${state} pairs`, color: STATE_COLORS[state] })),
});
const healthTitle = document.querySelector<HTMLElement>('#health-title')!;
const healthChart = lineChart(document.querySelector<HTMLElement>('#health-chart')!, {
  xLabel: 'seconds ago',
  height: 140,
  stepped: true,
  // Lifeguard's score runs from 0 to awarenessMaxMultiplier − 1 (7 with the lan preset).
  yRange: [0, 8],
  series: [{ label: 'health score', color: '#7a2cc4' }],
});

const samples: Array<{ time: number; alive: number; suspect: number; dead: number }> = [];
const health = new Map<string, Array<{ time: number; score: number }>>();
let shown: string | undefined;

/** Add this tab's own row (and column) to the server's matrix. */
export function withTab(matrix: ViewMatrix, tab: TabView | undefined): ViewMatrix {
  if (tab === undefined) return matrix;
  const members = matrix.members.includes(tab.name) ? matrix.members : [...matrix.members, tab.name];
  const widen = (row: MatrixRow): MatrixRow => (members.length === matrix.members.length ? row : { ...row, states: `${row.states}-`, incarnations: [...row.incarnations, 0] });
  return { members, rows: [...matrix.rows.map(widen), matrixRow(tab.name, tab.healthScore, members, (subject) => tab.view.get(subject))] };
}

export function updateLiveViews(state: ClusterState, tab: TabView | undefined): void {
  const matrix = withTab(state.matrix, tab);
  const far = new Set([...(state.partition?.halves?.[1] ?? []), ...state.members.filter((m) => m.blackout).map((m) => m.name)]);
  renderMatrix(matrixSvg, matrix, { cut: far, ...(tab === undefined ? {} : { self: tab.name }) });

  const now = state.time;
  samples.push({ time: now, ...countStates(matrix) });
  for (const row of matrix.rows) record(row.observer, now, row.healthScore);
  while (samples.length > 0 && samples[0]!.time < now - HISTORY_MS) samples.shift();
  const ago = (time: number) => Math.round((time - now) / 100) / 10;
  timeline.setData(
    samples.map((s) => ago(s.time)),
    (['alive', 'suspect', 'dead'] as const).map((key) => samples.map((s) => s[key])),
  );
  drawHealth(now);
}

/** Show `name`'s health history (the member under the pointer, or the last one tapped). */
export function showHealthOf(name: string): void {
  if (shown === name) return;
  shown = name;
  drawHealth(samples.at(-1)?.time ?? Date.now());
}

function record(name: string, time: number, score: number): void {
  const list = health.get(name) ?? [];
  health.set(name, list);
  list.push({ time, score });
  while (list.length > 0 && list[0]!.time < time - HISTORY_MS) list.shift();
}

function drawHealth(now: number): void {
  if (shown === undefined) return;
  const list = health.get(shown) ?? [];
  healthTitle.textContent = `Health score of ${shown}, last 5 minutes (0 = healthy; it rises when the member misses answers, and slows its probing)`;
  healthTitle.dataset['member'] = shown;
  healthChart.setData(
    list.map((s) => Math.round((s.time - now) / 100) / 10),
    [list.map((s) => s.score)],
  );
}
