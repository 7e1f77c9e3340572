import { describeProtocolNegotiation } from '@swim/transport-conformance';
import { sleep, transports } from './helpers.js';

/** Today's codec beside a test-only next version, over real UDP and TCP sockets on loopback. */
describeProtocolNegotiation('udp + tcp, 127.0.0.1', async () => {
  const pool = transports('127.0.0.1');
  return { create: () => pool.open(), settle: sleep, close: pool.closeAll };
});
