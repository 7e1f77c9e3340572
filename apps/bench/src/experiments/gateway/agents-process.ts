/**
 * The UDP agents: `count` @swim/runtime members (lan preset) over @swim/transport-udp in this one
 * process, joined through the gateway's member. Each keeps what it saw of every other member (state,
 * and when it entered it), and the suspect / dead / left events about browser members.
 */
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { Probe, serve, settings } from './probe.js';
import type { TabEvent } from './result.js';
import { allSeen, type Seen } from './summary.js';

const { count, seed, tabPrefixes } = settings<{ count: number; seed: string; tabPrefixes: string[] }>();
const probe = new Probe();
const views: Array<Map<string, Seen>> = [];
const events: TabEvent[] = [];
const members: Member[] = [];
const isTab = (name: string) => tabPrefixes.some((p) => name.startsWith(p));

for (let i = 0; i < count; i++) {
  const name = `udp-${i}`;
  const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  const member = new Member({ name, transport, preset: 'lan' });
  // An agent sees itself alive (no change event is about oneself).
  const view = new Map<string, Seen>([[name, { state: 'alive', at: Date.now() }]]);
  member.on('change', (change) => {
    const m = change.member;
    const before = view.get(m.name);
    if (before?.state === m.state) return;
    const at = Date.now();
    view.set(m.name, { state: m.state, at });
    if (isTab(m.name) && (m.state === 'suspect' || m.state === 'dead' || m.state === 'left')) events.push({ agent: name, name: m.name, state: m.state, at });
  });
  views.push(view);
  members.push(member);
}
await Promise.all(members.map((m) => m.join([seed])));

serve((request) => {
  switch (request.op) {
    case 'ready':
      return { addresses: members.map((m) => m.address) };
    case 'seen':
      return allSeen(views, request['names'] as string[], request['state'] as string);
    case 'events':
      return events.filter((e) => e.at >= (request['since'] as number));
    case 'window':
      return probe.window(request['reset'] === true);
    default:
      throw new Error(`unknown op ${request.op}`);
  }
});
