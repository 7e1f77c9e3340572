import { describeProtocolNegotiation } from '@swim/transport-conformance';
import { MemoryNetwork, uniformLatency, VirtualClock } from '../src/index.js';
import type { MemoryTransport } from '../src/index.js';

/** Today's codec beside a test-only next version, on a virtual-time network with latency. */
describeProtocolNegotiation('memory, virtual time', async () => {
  const clock = new VirtualClock();
  const network = new MemoryNetwork({ scheduler: clock, seed: 11, latency: uniformLatency(1, 20) });
  const made: MemoryTransport[] = [];
  let next = 1;
  return {
    clock,
    create: async () => {
      const transport = network.transport(`m${next++}:7946`);
      made.push(transport);
      return transport;
    },
    settle: async (ms) => {
      clock.runFor(ms);
      await Promise.resolve();
    },
    close: async () => {
      await Promise.all(made.map((t) => t.close()));
    },
  };
});
