/**
 * The gateways: one line per gateway with its state, the tabs it relays (this one marked), and
 * one button that kills it (a crashed process: tabs dropped without a close frame, relays and
 * member gone) or starts it again. Updated in place, so the button does not move under the pointer.
 */
import type { GatewaySnapshot } from '../src/api.js';

export function renderGateways(container: HTMLElement, gateways: readonly GatewaySnapshot[], tab: string | undefined): void {
  for (const gateway of gateways) {
    const row = container.querySelector<HTMLElement>(`[data-gateway-row="${gateway.name}"]`) ?? newRow(container, gateway.name);
    const killed = gateway.process === 'killed';
    const ours = tab !== undefined && gateway.browsers.some((b) => b.name === tab && b.connected);
    const tabs = gateway.browsers.length;
    const text = `${gateway.name}: ${killed ? 'killed' : `running, ${tabs} tab${tabs === 1 ? '' : 's'}${ours ? ' (this tab among them)' : ''}`}`;
    const label = row.querySelector('span')!;
    if (label.textContent !== text) label.textContent = text;
    row.dataset['process'] = gateway.process;
    const button = row.querySelector('button')!;
    button.dataset['action'] = killed ? 'restart' : 'kill';
    const caption = killed ? 'restart' : 'kill';
    if (button.textContent !== caption) button.textContent = caption;
  }
}

function newRow(container: HTMLElement, name: string): HTMLElement {
  const row = document.createElement('p');
  row.className = 'gateway-row';
  row.dataset['gatewayRow'] = name;
  const button = document.createElement('button');
  button.type = 'button';
  button.dataset['gateway'] = name;
  button.title = `kill ${name} as a crashed process, or start it again`;
  row.append(document.createElement('span'), button);
  container.append(row);
  return row;
}
