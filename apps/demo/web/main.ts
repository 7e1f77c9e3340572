/**
 * The page: this tab joins the cluster as a member over the WebSocket gateways (it is given both
 * and moves to the other when its own dies), draws the members as it sees them, and drives the
 * demo's faults through the control API. Two views, chosen by the
 * URL's fragment: the live cluster (#live) and the headline comparison (#headline).
 */
import { Member } from '@swim/runtime';
import { connectWsTransport, leaveOnPageHide } from '@swim/transport-ws';
import type { ClusterState, DemoEvent, PageConfig } from '../src/api.js';
import './style.css';
import { renderGateways } from './gateways-panel.js';
import { graphNodes, renderGraph } from './graph.js';
import './headline.js';
import { showHealthOf, updateLiveViews, type TabView } from './live-views.js';
import { renderMembers } from './members-table.js';
import { partitionText, recoveryText } from './status.js';

const svg = document.querySelector<SVGSVGElement>('#graph')!;
const selfLine = document.querySelector<HTMLElement>('#self')!;
const connectionLine = document.querySelector<HTMLElement>('#connection')!;
const partitionLine = document.querySelector<HTMLElement>('#partition-status')!;
const recoveryLine = document.querySelector<HTMLElement>('#recovery-status')!;
const table = document.querySelector<HTMLTableSectionElement>('#members tbody')!;
const gatewayPanel = document.querySelector<HTMLElement>('#gateways')!;
const log = document.querySelector<HTMLOListElement>('#log')!;

let state: ClusterState | undefined;
let member: Member | undefined;

function addLog(text: string, kind: string, time = Date.now()): void {
  const item = document.createElement('li');
  item.className = kind;
  item.textContent = `${new Date(time).toLocaleTimeString()} ${text}`;
  log.prepend(item);
  while (log.children.length > 300) log.lastElementChild?.remove();
}

async function post(path: string): Promise<void> {
  const res = await fetch(path, { method: 'POST' });
  if (!res.ok) addLog(`${path}: ${((await res.json()) as { error: string }).error}`, 'action');
}

function tabView(): TabView | undefined {
  if (member === undefined) return undefined;
  return { name: member.name, healthScore: member.healthScore, view: new Map(member.allMembers().map((m) => [m.name, { state: m.state, incarnation: m.incarnation }])) };
}

/** Redraw what this tab's own view changes (the ring, the table, the lines); `withViews` also the matrix and charts (once per server snapshot). */
function render(withViews = false): void {
  const tab = tabView();
  const held = tab?.view ?? new Map();
  renderGraph(svg, graphNodes(state, held, member?.name ?? '', member?.healthScore ?? 0));
  if (member !== undefined) {
    selfLine.textContent = `this tab is ${member.name}: incarnation ${member.incarnation}, health ${member.healthScore}, sees ${[...held.values()].filter((m) => m.state === 'alive').length} alive`;
  }
  renderMembers(table, state?.members ?? [], held);
  renderGateways(gatewayPanel, state?.gateways ?? [], member?.name);
  partitionLine.textContent = partitionText(state, Date.now());
  recoveryLine.textContent = recoveryText(state);
  if (withViews && state !== undefined) updateLiveViews(state, tab);
}

table.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest('button');
  if (button?.dataset['action'] === undefined || button.disabled) return;
  void post(`/api/members/${encodeURIComponent(button.dataset['member']!)}/${button.dataset['action']}`);
});
gatewayPanel.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest('button');
  if (button?.dataset['gateway'] === undefined || button.dataset['action'] === undefined) return;
  void post(`/api/gateways/${encodeURIComponent(button.dataset['gateway'])}/${button.dataset['action']}`);
});
document.querySelector('#add')!.addEventListener('click', () => void post('/api/add'));
document.querySelector('#partition')!.addEventListener('click', () => void post('/api/partition'));
document.querySelector('#heal')!.addEventListener('click', () => void post('/api/heal'));

// The health history follows the pointer over the ring and the table (a tap on touch screens).
for (const area of [svg, table]) {
  const pick = (event: Event) => {
    const name = (event.target as Element).closest<HTMLElement | SVGElement>('[data-member]')?.dataset['member'];
    if (name !== undefined) showHealthOf(name);
  };
  area.addEventListener('pointerover', pick);
  area.addEventListener('click', pick);
}

function showView(): void {
  const wanted = location.hash === '#headline' ? 'headline' : 'live';
  for (const view of document.querySelectorAll<HTMLElement>('.view')) view.hidden = view.id !== wanted;
  for (const link of document.querySelectorAll<HTMLElement>('nav a')) link.setAttribute('aria-current', String(link.dataset['view'] === wanted));
  document.body.dataset['view'] = wanted;
}
window.addEventListener('hashchange', showView);
showView();

const events = new EventSource('/api/events');
events.addEventListener('state', (event) => {
  state = JSON.parse((event as MessageEvent<string>).data) as ClusterState;
  render(true);
  // Snapshots drawn so far: tests wait on a number of redraws, not on a time.
  document.body.dataset['snapshots'] = String(Number(document.body.dataset['snapshots'] ?? 0) + 1);
});
events.addEventListener('log', (event) => {
  const entry = JSON.parse((event as MessageEvent<string>).data) as DemoEvent;
  addLog(entry.text, entry.kind, entry.time);
});

async function join(): Promise<void> {
  const config = (await (await fetch('/api/config')).json()) as PageConfig;
  const random = crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16).padStart(4, '0');
  const name = `tab-${random}`;
  const transport = await connectWsTransport({ url: config.gateways.map((g) => g.url), name, token: config.token });
  const gatewayName = () => config.gateways.find((g) => g.url === transport.url)?.name ?? transport.url;
  // Which gateway the tab is on and its relay (its address in the cluster): both change when it moves.
  const showConnection = () => {
    connectionLine.textContent = `on ${gatewayName()}, relay ${transport.address}, connection ${transport.state}`;
    document.body.dataset['gateway'] = gatewayName();
    document.body.dataset['relay'] = transport.address;
  };
  transport.onStateChange(showConnection);
  transport.onAddressChange((address) => {
    addLog(`this tab moved to ${gatewayName()}: relay ${address}, the same member at a higher incarnation`, 'action');
    showConnection();
  });
  showConnection();
  member = new Member({ name, transport, preset: config.preset, config: config.config });
  // The cluster's log (first observer wins) already tells each change once; this tab's view shows in the drawing and the table.
  member.on('change', () => render());
  member.on('health', () => render());
  leaveOnPageHide(member);
  const result = await member.join(transport.seed === undefined ? [] : [transport.seed]);
  addLog(`this tab joined through ${result.contacted.join(', ')}`, 'action');
  document.body.dataset['joined'] = name;
  render();
}

join().catch((error: unknown) => {
  selfLine.textContent = `could not join: ${(error as Error).message}`;
  document.body.dataset['joinError'] = (error as Error).message;
});
