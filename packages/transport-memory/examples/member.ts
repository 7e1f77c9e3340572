import { Member } from '@swim/runtime';
import { MemoryNetwork, realScheduler } from '@swim/transport-memory';

// Three members over an in-memory network in real time; over UDP only the transport changes
// (@swim/transport-udp's examples/three-members.ts).
const network = new MemoryNetwork({ scheduler: realScheduler, seed: 1 });
const fast = { probeIntervalMs: 200, probeTimeoutMs: 80, gossipIntervalMs: 50, suspicionMult: 2 };
const [a, b, c] = ['a', 'b', 'c'].map((name) => new Member({ name, transport: network.transport(`${name}:7946`), config: fast }));

a!.on('dead', (change) => console.log(`a: ${change.member.name} is dead (${change.cause?.kind})`));
b!.on('left', (change) => console.log(`b: ${change.member.name} left`));

await b!.join([a!.address]);
await c!.join([a!.address]);
// Joining is a push-pull with the seed; the others hear about the newcomer by gossip.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
while (![a, b, c].every((m) => m!.members().length === 3)) await sleep(10);

const watcher = new AbortController();
void (async () => {
  for await (const change of a!.changes({ signal: watcher.signal })) console.log(`a sees ${change.member.name} ${change.event}`);
})();

await c!.leave(); // gossip "left" and wait until it has spread
await c!.close();
await sleep(500);
console.log('a knows', a!.members().map((m) => `${m.name} (${m.state})`).join(', '));

watcher.abort();
await Promise.all([a!.close(), b!.close()]);
