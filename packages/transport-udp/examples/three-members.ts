// A runnable example: three members over real UDP and TCP on 127.0.0.1, in one process.
// Run: cd packages/transport-udp && node --conditions=@swim/source --import tsx examples/three-members.ts
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';

// Three members over UDP (packets) and TCP (streams) on 127.0.0.1, each on a free port. Across
// processes or machines it is the same code: each member binds its own address and joins a seed.
// createUdpTransport is async: it binds the UDP socket and the TCP listener first.
const [a, b, c] = await Promise.all(
  ['a', 'b', 'c'].map(async (name) => {
    const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    return new Member({ name, transport }); // the LAN preset, memberlist's defaults
  }),
);

b!.on('left', (change) => console.log(`b: ${change.member.name} left`));

await b!.join([a!.address]);
await c!.join([a!.address]);
// Joining is a push-pull with the seed; the others hear about the newcomer by gossip.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
while (![a, b, c].every((m) => m!.members().length === 3)) await sleep(10);
console.log('a knows', a!.members().map((m) => `${m.name} at ${m.address} (${m.state})`).join(', '));

await c!.leave(); // gossip "left" and wait until it has spread
await c!.close();
while ([a, b].some((m) => m!.member('c')?.state === 'alive')) await sleep(10);
console.log('a knows', a!.members().map((m) => `${m.name} (${m.state})`).join(', '));

await Promise.all([a!.close(), b!.close()]);
