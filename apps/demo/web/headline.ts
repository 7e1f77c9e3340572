/**
 * A minimal headline panel: a button that starts the side-by-side blackout run (24 members a side,
 * 6 cut off for 30 s) on the server, and the two false-death counters as the run reports them.
 * The full views of the run (both clusters, who sees whom) are drawn elsewhere from the same
 * GET /api/headline status.
 */
import { HEADLINE_EXPLANATION, type HeadlineStatus } from '../src/headline-api.js';

const POLL_MS = 500;

const panel = document.createElement('section');
panel.id = 'headline';
panel.innerHTML = `
  <h2>The headline: memberlist vs @swim</h2>
  <p>Two simulated clusters of 24 members, the same 6 cut off from the network for 30 s, then reconnected.
  A false death is a healthy member declared dead by another healthy member.</p>
  <div class="headline-sides">
    <div><strong>memberlist</strong>: <output id="headline-memberlist" data-false-deaths="0">0</output> false deaths</div>
    <div><strong>@swim</strong>: <output id="headline-swim" data-false-deaths="0">0</output> false deaths</div>
  </div>
  <div class="toolbar">
    <button id="headline-start" type="button">Run the blackout comparison</button>
    <span id="headline-phase"></span>
  </div>
  <p class="why"></p>
  <p class="why"></p>`;
document.querySelector('header')?.after(panel);
const [whyMemberlist, whySwim] = panel.querySelectorAll<HTMLElement>('.why');
whyMemberlist!.textContent = `memberlist: ${HEADLINE_EXPLANATION.memberlist}`;
whySwim!.textContent = `@swim: ${HEADLINE_EXPLANATION.swim}`;
const button = panel.querySelector<HTMLButtonElement>('#headline-start')!;
const phaseLine = panel.querySelector<HTMLElement>('#headline-phase')!;

let polling: ReturnType<typeof setTimeout> | undefined;

function show(run: HeadlineStatus | null, running: boolean): void {
  button.disabled = running;
  if (run === null) return;
  for (const side of run.sides) {
    const counter = panel.querySelector<HTMLOutputElement>(`#headline-${side.side}`)!;
    counter.value = String(side.falseDeaths);
    counter.dataset['falseDeaths'] = String(side.falseDeaths);
  }
  const since = run.sinceCutMs === null ? '' : `, ${(run.sinceCutMs / 1000).toFixed(0)} s since the cut`;
  phaseLine.textContent = `${run.phase}${since}${run.error === undefined ? '' : `: ${run.error}`}`;
  phaseLine.dataset['phase'] = run.phase;
}

async function poll(): Promise<void> {
  polling = undefined;
  try {
    const res = await fetch('/api/headline');
    const body = (await res.json()) as { running: boolean; run: HeadlineStatus | null };
    show(body.run, body.running);
    if (body.running) polling = setTimeout(() => void poll(), POLL_MS);
  } catch {
    polling = setTimeout(() => void poll(), POLL_MS * 4);
  }
}

button.addEventListener('click', () => {
  void (async () => {
    button.disabled = true;
    const res = await fetch('/api/headline/start', { method: 'POST', body: JSON.stringify({ members: 24, cut: 6, outageS: 30 }) });
    if (!res.ok) phaseLine.textContent = ((await res.json()) as { error: string }).error;
    if (polling === undefined) void poll();
  })();
});

void poll();
