import { describeTransportConformance } from '@swim/transport-conformance';
import { constantLatency, MemoryNetwork, realScheduler, uniformLatency, VirtualClock } from '../src/index.js';
import type { MemoryTransport } from '../src/index.js';

/** Endpoints t1, t2, ... on one network; close() closes them all. */
function harnessOn(network: MemoryNetwork, settle: (ms: number) => Promise<void>) {
  const made: MemoryTransport[] = [];
  let next = 1;
  return {
    create: async () => {
      const transport = network.transport(`t${next++}`);
      made.push(transport);
      return transport;
    },
    settle,
    close: async () => {
      await Promise.all(made.map((t) => t.close()));
    },
    unknownAddress: 'nobody-listens-here',
  };
}

describeTransportConformance('memory, virtual time', async () => {
  const clock = new VirtualClock();
  const network = new MemoryNetwork({ scheduler: clock, seed: 7, latency: uniformLatency(1, 20) });
  return harnessOn(network, async (ms) => {
    clock.runFor(ms);
    await Promise.resolve();
  });
});

describeTransportConformance('memory, real time', async () => {
  const network = new MemoryNetwork({ scheduler: realScheduler, seed: 7, latency: constantLatency(1) });
  return {
    ...harnessOn(network, (ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    deliveryMs: 50,
  };
});
