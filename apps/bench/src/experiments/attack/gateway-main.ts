/**
 * A WebSocket gateway process for the attack suite, as the transport-ws README deploys one: a UDP
 * member of its own (the clients' seed) and `createWsGateway` on 127.0.0.1. Started by
 * processes.ts with one JSON argument `{name, token, join, config, gateway}`; prints a JSON `start`
 * line, then one line per membership change, like `swim agent --log json`. Answers `gateway`
 * requests on the IPC channel with its sessions and counters. It installs no handler for uncaught
 * exceptions: a crash must show as the process exiting.
 */
import type { SwimConfig } from '@swim/core';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { createWsGateway, type WsGatewayOptions } from '@swim/transport-ws/node';

interface Settings {
  readonly name: string;
  readonly token: string;
  readonly join: readonly string[];
  readonly config: Partial<SwimConfig>;
  readonly gateway: Partial<WsGatewayOptions>;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const out = (value: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), self: settings.name, ...value })}\n`);

const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
const member = new Member({ name: settings.name, transport, config: settings.config });
member.on('change', (change) => {
  const m = change.member;
  out({ event: change.event, member: { name: m.name, address: m.address, state: m.state, incarnation: m.incarnation }, previous: change.previous ?? null });
});
// As the README deploys it: the seed's name too, so that client accusations about it are dropped.
const gateway = await createWsGateway({ ...settings.gateway, token: settings.token, seed: member.address, seedName: settings.name });
out({ event: 'start', address: member.address, url: gateway.url });
if (settings.join.length > 0) member.join([...settings.join]).catch(() => out({ event: 'join-failed' }));

process.on('message', (message: unknown) => {
  const request = message as { op?: unknown; id?: unknown } | null;
  if (request?.op !== 'gateway' || typeof request.id !== 'number') return;
  const sessions = gateway.sessions();
  process.send?.({
    op: 'gateway',
    id: request.id,
    sessions: sessions.length,
    connected: sessions.filter((s) => s.connected).length,
    counters: gateway.counters,
    incarnation: member.incarnation,
    members: member.allMembers().map((m) => ({ name: m.name, address: m.address, state: m.state, incarnation: m.incarnation })),
  });
});
process.channel?.unref();

const stop = () => {
  void Promise.allSettled([gateway.close(), member.close()]).then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
