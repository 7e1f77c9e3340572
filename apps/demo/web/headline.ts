/**
 * The headline view: two simulated clusters run side by side on the server, one with memberlist's
 * settings and one with ours, the same members cut off for the same time (parameters chosen
 * here). Each side shows its false deaths as they happen, who sees whom, and its state counts over
 * time; below each, why it does or does not kill healthy members.
 */
import { HEADLINE_DEFAULTS, HEADLINE_EXPLANATION, HEADLINE_LIMITS, type HeadlineParams, type HeadlineSide, type HeadlineSideName, type HeadlineStatus } from '../src/headline-api.js';
import { lineChart, STATE_COLORS, type LineChart } from './chart.js';
import { renderMatrix } from './matrix.js';

const POLL_MS = 500;
const TITLES: Record<HeadlineSideName, string> = { memberlist: 'memberlist, as shipped', swim: '@swim defaults' };
/** The form's fields: parameter, label, unit. */
const FIELDS: ReadonlyArray<[keyof HeadlineParams, string, string]> = [
  ['members', 'members', ''],
  ['cut', 'cut off', ''],
  ['outageS', 'outage', 's'],
  ['watchS', 'watch after', 's'],
  ['speed', 'speed', '×'],
  ['seed', 'seed', ''],
];

const view = document.querySelector<HTMLElement>('#headline')!;
view.innerHTML = `
  <h2>The headline: memberlist vs @swim</h2>
  <p class="intro">Two simulated clusters of the same size run side by side on the server: the left one with memberlist's settings, the right one with ours.
  The same members are cut off the network for the same time in both, then reconnected. A <strong>false death</strong> is a healthy member declared dead by another healthy member.</p>
  <form id="headline-form">
    <div class="fields"></div>
    <div class="toolbar">
      <button id="headline-start" type="submit">Run the blackout comparison</button>
      <button id="headline-stop" type="button">Stop</button>
      <span id="headline-phase" role="status"></span>
    </div>
    <p class="hint">speed: simulated seconds per real second (0 = as fast as the server can). Same seed, same run.</p>
  </form>
  <div class="headline-score" aria-live="polite">
    <p data-side="memberlist"><span>memberlist</span> <output id="headline-memberlist" data-false-deaths="0">0</output> false deaths <span class="victims"></span></p>
    <p data-side="swim"><span>@swim</span> <output id="headline-swim" data-false-deaths="0">0</output> false deaths <span class="victims"></span></p>
  </div>
  <div class="headline-sides"></div>
  <p class="legend">Each matrix: a row per observer, a column per member, coloured by the state the row holds about the column
  (<span class="dot alive"></span> alive <span class="dot suspect"></span> suspect <span class="dot dead"></span> dead <span class="dot left"></span> left <span class="dot unknown"></span> not known), with the incarnation held;
  ✂ marks the members cut off. The charts count (observer, member) pairs by state, against seconds since the cut.</p>`;

const fields = view.querySelector<HTMLElement>('.fields')!;
const inputs = new Map<keyof HeadlineParams, HTMLInputElement>();
for (const [key, label, unit] of FIELDS) {
  const wrapper = document.createElement('label');
  const input = document.createElement('input');
  input.type = 'number';
  input.name = key;
  input.id = `headline-${key}`;
  input.value = String(HEADLINE_DEFAULTS[key]);
  const limits = key === 'cut' ? { min: 1, max: HEADLINE_LIMITS.members.max / 2 } : HEADLINE_LIMITS[key];
  input.min = String(limits.min);
  input.max = String(limits.max);
  input.required = true;
  wrapper.append(`${label}${unit === '' ? '' : ` (${unit})`}`, input);
  fields.append(wrapper);
  inputs.set(key, input);
}

interface SideView {
  readonly article: HTMLElement;
  readonly counter: HTMLOutputElement;
  readonly victims: HTMLElement;
  readonly matrix: SVGSVGElement;
  readonly chart: LineChart;
}

const sides = view.querySelector<HTMLElement>('.headline-sides')!;
const sideViews = new Map<HeadlineSideName, SideView>();
for (const side of ['memberlist', 'swim'] as const) {
  const article = document.createElement('article');
  article.className = 'headline-side';
  article.dataset['side'] = side;
  article.dataset['empty'] = '';
  article.innerHTML = `
    <h3>${TITLES[side]}</h3>
    <p class="placeholder">Press <em>Run the blackout comparison</em>: who sees whom and the state counts over time show here.</p>
    <svg class="matrix" role="img" aria-label="who sees whom on the ${TITLES[side]} side"></svg>
    <div class="chart"></div>
    <p class="why"></p>`;
  article.querySelector<HTMLElement>('.why')!.textContent = HEADLINE_EXPLANATION[side];
  sides.append(article);
  const score = view.querySelector<HTMLElement>(`.headline-score [data-side="${side}"]`)!;
  sideViews.set(side, {
    article,
    counter: score.querySelector('output')!,
    victims: score.querySelector('.victims')!,
    matrix: article.querySelector('svg')!,
    chart: lineChart(article.querySelector<HTMLElement>('.chart')!, {
      xLabel: 'seconds since the cut',
      height: 150,
      series: [
        ...(['alive', 'suspect', 'dead'] as const).map((state) => ({ label: state, color: STATE_COLORS[state] })),
        { label: 'false deaths so far', color: STATE_COLORS.falseDeath, dash: [6, 4] },
      ],
    }),
  });
}

const form = view.querySelector<HTMLFormElement>('#headline-form')!;
const startButton = view.querySelector<HTMLButtonElement>('#headline-start')!;
const stopButton = view.querySelector<HTMLButtonElement>('#headline-stop')!;
const phaseLine = view.querySelector<HTMLElement>('#headline-phase')!;
let polling: ReturnType<typeof setTimeout> | undefined;

const PHASE_TEXT: Record<HeadlineStatus['phase'], string> = {
  converging: 'both clusters are forming',
  steady: 'steady: every member alive',
  blackout: 'blackout: the cut-off members hear nothing and are heard by no one',
  reconnected: 'reconnected: the held messages arrive',
  done: 'done',
  stopped: 'stopped',
  failed: 'failed',
};

function showSide(side: HeadlineSide, run: HeadlineStatus): void {
  const shown = sideViews.get(side.side)!;
  delete shown.article.dataset['empty'];
  shown.counter.value = String(side.falseDeaths);
  shown.counter.dataset['falseDeaths'] = String(side.falseDeaths);
  shown.victims.textContent = side.falseDeaths === 0 ? '' : `(${side.falseVictims} healthy member${side.falseVictims === 1 ? '' : 's'})`;
  renderMatrix(shown.matrix, side, { cut: new Set(run.cut) });
  const cutAt = run.sinceCutMs === null ? null : run.virtualMs - run.sinceCutMs;
  const origin = cutAt ?? run.virtualMs;
  shown.chart.setData(
    side.history.map((s) => (s.atMs - origin) / 1000),
    [...(['alive', 'suspect', 'dead'] as const).map((state) => side.history.map((s) => s[state])), side.history.map((s) => s.falseDeaths)],
  );
}

function show(run: HeadlineStatus | null, running: boolean): void {
  startButton.disabled = running;
  stopButton.disabled = !running;
  if (run === null) return;
  for (const side of run.sides) showSide(side, run);
  const since = run.sinceCutMs === null ? '' : `, ${(run.sinceCutMs / 1000).toFixed(0)} s since the cut`;
  phaseLine.textContent = `${PHASE_TEXT[run.phase]}${since}${run.error === undefined ? '' : `: ${run.error}`}`;
  phaseLine.dataset['phase'] = run.phase;
  view.dataset['cut'] = run.cut.join(' ');
}

async function poll(): Promise<void> {
  polling = undefined;
  try {
    const body = (await (await fetch('/api/headline')).json()) as { running: boolean; run: HeadlineStatus | null };
    show(body.run, body.running);
    if (body.running) polling = setTimeout(() => void poll(), POLL_MS);
  } catch {
    polling = setTimeout(() => void poll(), POLL_MS * 4);
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void (async () => {
    startButton.disabled = true;
    const params = Object.fromEntries([...inputs].map(([key, input]) => [key, Number(input.value)]));
    const res = await fetch('/api/headline/start', { method: 'POST', body: JSON.stringify(params) });
    if (!res.ok) {
      phaseLine.textContent = ((await res.json()) as { error: string }).error;
      phaseLine.dataset['phase'] = 'refused';
    }
    if (polling === undefined) void poll();
  })();
});

stopButton.addEventListener('click', () => {
  void fetch('/api/headline/stop', { method: 'POST' }).then(() => {
    if (polling === undefined) void poll();
  });
});

void poll();
