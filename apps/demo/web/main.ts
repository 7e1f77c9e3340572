/**
 * The page: this tab joins the cluster as a member over the WebSocket gateway, draws the members
 * as it sees them, and drives the demo's faults through the control API.
 */
import { Member } from '@swim/runtime';
import { connectWsTransport, leaveOnPageHide } from '@swim/transport-ws';
import type { ClusterState, DemoEvent, PageConfig } from '../src/api.js';
import { graphNodes, renderGraph } from './graph.js';
import './headline.js';
import { partitionText } from './partition.js';

const svg = document.querySelector<SVGSVGElement>('#graph')!;
const selfLine = document.querySelector<HTMLElement>('#self')!;
const connectionLine = document.querySelector<HTMLElement>('#connection')!;
const partitionLine = document.querySelector<HTMLElement>('#partition-status')!;
const table = document.querySelector<HTMLTableSectionElement>('#members tbody')!;
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

function view(): Map<string, { state: string; incarnation: number }> {
  return new Map((member?.allMembers() ?? []).map((m) => [m.name, { state: m.state, incarnation: m.incarnation }]));
}

function render(): void {
  const held = view();
  renderGraph(svg, graphNodes(state, held, member?.name ?? '', member?.healthScore ?? 0));
  if (member !== undefined) {
    selfLine.textContent = `this tab is ${member.name} at ${member.address}: incarnation ${member.incarnation}, health ${member.healthScore}, sees ${[...held.values()].filter((m) => m.state === 'alive').length} alive`;
  }
  renderTable(held);
  partitionLine.textContent = partitionText(state, Date.now());
}

function renderTable(held: Map<string, { state: string; incarnation: number }>): void {
  const rows = (state?.members ?? []).map((m) => {
    const row = document.createElement('tr');
    row.dataset['member'] = m.name;
    const fault = m.process !== 'running' ? m.process : m.blackout ? 'cut off' : 'running';
    const cells = [m.name, fault, held.get(m.name)?.state ?? 'unknown', String(held.get(m.name)?.incarnation ?? '?'), m.process === 'crashed' ? '' : String(m.healthScore)];
    for (const value of cells) {
      const cell = document.createElement('td');
      cell.textContent = value;
      row.append(cell);
    }
    const actions = document.createElement('td');
    const buttons: Array<[string, string]> =
      m.process === 'crashed'
        ? [['restart', 'restart']]
        : [
            ['crash', 'crash'],
            m.process === 'paused' ? ['resume', 'resume'] : ['pause', 'pause'],
            m.blackout ? ['reconnect', 'reconnect'] : ['blackout', 'black out'],
          ];
    for (const [action, label] of buttons) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.dataset['action'] = action;
      button.dataset['member'] = m.name;
      actions.append(button);
    }
    row.append(actions);
    return row;
  });
  table.replaceChildren(...rows);
}

table.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest('button');
  if (button?.dataset['action'] === undefined) return;
  void post(`/api/members/${encodeURIComponent(button.dataset['member']!)}/${button.dataset['action']}`);
});
document.querySelector('#add')!.addEventListener('click', () => void post('/api/add'));
document.querySelector('#partition')!.addEventListener('click', () => void post('/api/partition'));
document.querySelector('#heal')!.addEventListener('click', () => void post('/api/heal'));

const events = new EventSource('/api/events');
events.addEventListener('state', (event) => {
  state = JSON.parse((event as MessageEvent<string>).data) as ClusterState;
  render();
});
events.addEventListener('log', (event) => {
  const entry = JSON.parse((event as MessageEvent<string>).data) as DemoEvent;
  addLog(entry.text, entry.kind, entry.time);
});

async function join(): Promise<void> {
  const config = (await (await fetch('/api/config')).json()) as PageConfig;
  const random = crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16).padStart(4, '0');
  const name = `tab-${random}`;
  const transport = await connectWsTransport({ url: config.gatewayUrl, name, token: config.token });
  transport.onStateChange((now) => {
    connectionLine.textContent = `gateway connection: ${now}`;
  });
  connectionLine.textContent = `gateway connection: ${transport.state}`;
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
