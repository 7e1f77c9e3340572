// The transport conformance suite, through secureTransport over the in-memory network (real time:
// WebCrypto completes on real time, so a virtual clock would run ahead of it) and over UDP + TCP.
import { CONCURRENT_REQUESTS, describeTransportConformance } from '@swim/transport-conformance';
import { constantLatency, MemoryNetwork, realScheduler } from '@swim/transport-memory';
import { createUdpTransport, type UdpTransport } from '@swim/transport-udp';
import { generateKey, Keyring, secureTransport, type SecureTransport, type SecureTransportOptions } from '../src/index.js';
import { nodeCryptoEngine } from '../src/node/index.js';
import { sleep } from './helpers.js';

const key = generateKey();
const variants: Array<[string, () => SecureTransportOptions]> = [
  ['keyring', () => ({ keyring: Keyring.from([key]) })],
  ['label', () => ({ label: 'prod' })],
  ['keyring and label', () => ({ keyring: Keyring.from([key]), label: 'prod' })],
  // The synchronous engine: no promise between the inner transport and the handlers.
  ['keyring and label, node:crypto', () => ({ keyring: Keyring.from([key], { engine: nodeCryptoEngine }), label: 'prod' })],
];

for (const [name, options] of variants) {
  describeTransportConformance(`secureTransport (${name}) over memory, real time`, async () => {
    const network = new MemoryNetwork({ scheduler: realScheduler, seed: 7, latency: constantLatency(1) });
    const made: SecureTransport[] = [];
    let next = 1;
    return {
      create: async () => {
        const transport = secureTransport(network.transport(`t${next++}`), options());
        made.push(transport);
        return transport;
      },
      settle: sleep,
      close: async () => {
        await Promise.all(made.map((t) => t.close()));
      },
      unknownAddress: 'nobody-listens-here',
      deliveryMs: 50,
    };
  });
}

describeTransportConformance('secureTransport (keyring and label) over udp + tcp, 127.0.0.1', async () => {
  const made: SecureTransport[] = [];
  return {
    create: async () => {
      // The suite has CONCURRENT_REQUESTS streams in flight from one endpoint, over the per-source default (32).
      const inner: UdpTransport = await createUdpTransport({
        bind: { host: '127.0.0.1', port: 0 },
        maxStreamConnectionsPerSource: CONCURRENT_REQUESTS,
      });
      const transport = secureTransport(inner, { keyring: Keyring.from([key]), label: 'prod' });
      made.push(transport);
      return transport;
    },
    settle: sleep,
    close: async () => {
      await Promise.all(made.map((t) => t.close()));
    },
    deliveryMs: 150,
  };
});
