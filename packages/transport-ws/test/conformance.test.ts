import { CONCURRENT_REQUESTS, describeTransportConformance } from '@swim/transport-conformance';
import { createWsGateway, connectWsTransport, type WsGateway, type WsTransport } from '../src/node/index.js';
import { sleep } from './helpers.js';

// Every endpoint is a client of one gateway: a packet between two of them travels
// client → gateway → relay A → UDP → relay B → gateway → client. The suite sends arbitrary bytes,
// not SWIM packets, so the gateway runs with `verify: false` here; verification is tested in
// security.test.ts. The suite has CONCURRENT_REQUESTS in flight from one endpoint; a gateway allows
// maxStreamsPerSession (16 by default) per member, so it is raised to that.
describeTransportConformance('websocket clients through one gateway (ws on Node)', async () => {
  const gateway: WsGateway = await createWsGateway({ verify: false, maxStreamsPerSession: CONCURRENT_REQUESTS });
  const clients: WsTransport[] = [];
  let n = 0;
  return {
    create: async () => {
      const client = await connectWsTransport({ url: gateway.url, name: `endpoint-${++n}` });
      clients.push(client);
      return client;
    },
    settle: sleep,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await gateway.close();
    },
    // Two WebSocket hops and a UDP hop on loopback; the margin is for a busy 2-core machine.
    deliveryMs: 250,
  };
});
