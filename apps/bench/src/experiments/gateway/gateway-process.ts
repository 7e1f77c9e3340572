/**
 * The gateway process: its own UDP member (lan preset), the clients' seed, and createWsGateway
 * seeded with it, as the transport-ws README deploys it. The session caps and the rate limit are
 * raised: every client of the bench comes from 127.0.0.1. Answers `window` with its probe and counters.
 */
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { createWsGateway } from '@swim/transport-ws/node';
import { Probe, serve, settings } from './probe.js';

const { name, token, maxSessions } = settings<{ name: string; token: string; maxSessions: number }>();
const probe = new Probe();
const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
const member = new Member({ name, transport, preset: 'lan' });
const gateway = await createWsGateway({
  token,
  seed: member.address,
  seedName: name,
  maxSessions,
  maxSessionsPerIp: maxSessions,
  // The default (500/s, burst 1000 per connection) is not what is measured; no tab nears it, but a join storm should not be cut by it.
  rateLimit: { messagesPerSecond: 10_000, burst: 20_000 },
  onError: (error, context) => process.stderr.write(`gateway: ${context}: ${String(error)}\n`),
});

serve((request) => {
  switch (request.op) {
    case 'ready':
      return { url: gateway.url, seed: member.address };
    case 'window':
      return { window: probe.window(request['reset'] === true), counters: gateway.counters, sessions: gateway.sessions().length };
    default:
      throw new Error(`unknown op ${request.op}`);
  }
});
