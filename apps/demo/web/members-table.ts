/**
 * The members table, updated in place: one row per demo member, kept across redraws, with the
 * same three fault buttons in the same places on every row (crash or restart, pause or resume,
 * black out or reconnect; the ones that do not apply are disabled), so nothing moves under the
 * pointer between two snapshots.
 */
import type { DemoMemberSnapshot } from '../src/api.js';

type Held = ReadonlyMap<string, { readonly state: string; readonly incarnation: number }>;

/** Per row, the three buttons: [action, label] by the member's process and network state. */
function buttons(m: DemoMemberSnapshot): Array<[action: string, label: string, enabled: boolean]> {
  const crashed = m.process === 'crashed';
  return [
    crashed ? ['restart', 'restart', true] : ['crash', 'crash', true],
    m.process === 'paused' ? ['resume', 'resume', true] : ['pause', 'pause', !crashed],
    m.blackout ? ['reconnect', 'reconnect', true] : ['blackout', 'black out', !crashed],
  ];
}

export function renderMembers(body: HTMLTableSectionElement, members: readonly DemoMemberSnapshot[], held: Held): void {
  const rows = new Map([...body.rows].map((row) => [row.dataset['member']!, row]));
  const ordered = members.map((m) => {
    const row = rows.get(m.name) ?? newRow(m.name);
    const fault = m.process !== 'running' ? m.process : m.blackout ? 'cut off' : 'running';
    const view = held.get(m.name);
    const values = [m.name, fault, view?.state ?? 'unknown', String(view?.incarnation ?? '?'), m.process === 'crashed' ? '' : String(m.healthScore)];
    for (const [i, value] of values.entries()) {
      const cell = row.cells[i]!;
      if (cell.textContent !== value) cell.textContent = value;
    }
    row.cells[2]!.className = `state ${view?.state ?? 'unknown'}-text`;
    for (const [i, [action, label, enabled]] of buttons(m).entries()) {
      const button = row.cells[5]!.children[i] as HTMLButtonElement;
      button.dataset['action'] = action;
      if (button.textContent !== label) button.textContent = label;
      button.disabled = !enabled;
    }
    return row;
  });
  // Append only when the order changed (a member added): re-inserting rows would drop a press in progress.
  if (ordered.length !== body.rows.length || ordered.some((row, i) => body.rows[i] !== row)) body.replaceChildren(...ordered);
}

function newRow(name: string): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset['member'] = name;
  for (let i = 0; i < 5; i++) row.append(document.createElement('td'));
  const actions = document.createElement('td');
  actions.className = 'actions';
  for (let i = 0; i < 3; i++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset['member'] = name;
    actions.append(button);
  }
  row.append(actions);
  return row;
}
