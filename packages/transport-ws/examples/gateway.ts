// The server side (Node): a UDP member that is the browsers' seed, and a gateway relaying them in.
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { createWsGateway } from '@swim/transport-ws/node';

const own = await createUdpTransport({ bind: { host: '127.0.0.1', port: 7946 } });
const member = new Member({ name: 'gateway-1', transport: own });
const gateway = await createWsGateway({
  port: 8080,
  path: '/swim',
  token: process.env['SWIM_JOIN_TOKEN'] ?? 'change me',
  seed: member.address,
  seedName: member.name,
});
console.log(`browsers connect to ${gateway.url}`);
