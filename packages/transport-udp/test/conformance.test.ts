import { CONCURRENT_REQUESTS, describeTransportConformance } from '@swim/transport-conformance';
import { describe, it } from 'vitest';
import { formatAddress } from '../src/index.js';
import { freePort, ipv6LoopbackAvailable, sleep, transports } from './helpers.js';

async function harness(host: string) {
  const pool = transports(host);
  return {
    // One endpoint has CONCURRENT_REQUESTS streams open at another at once, over the default
    // per-source cap (32); past the cap they are refused (stream-bounds.test.ts).
    create: () => pool.open({ maxStreamConnectionsPerSource: CONCURRENT_REQUESTS }),
    settle: sleep,
    close: pool.closeAll,
    unknownAddress: formatAddress(host, await freePort(host)),
    // Loopback delivery takes well under a millisecond; the margin is for a busy 2-core machine.
    deliveryMs: 150,
  };
}

describeTransportConformance('udp + tcp, 127.0.0.1', () => harness('127.0.0.1'));

if (await ipv6LoopbackAvailable()) {
  describeTransportConformance('udp + tcp, ::1', () => harness('::1'));
} else {
  describe('transport conformance: udp + tcp, ::1', () => {
    it.skip('IPv6 loopback is not available on this machine', () => {});
  });
}
