/**
 * `gateway.abort()`: the gateway stops as a crashed process would, for demos and tests of failover.
 * Clients lose their connection without a close frame (1006), relays vanish without a word, the
 * port is free again, and a client with a list of gateways moves to the next one.
 */
import { createSocket } from 'node:dgram';
import { afterEach, expect, it } from 'vitest';
import type { WsGatewayOptions } from '../src/node/index.js';
import { pool, waitFor } from './helpers.js';
import { rawJoin } from './raw.js';

const made = pool();
afterEach(made.closeAll);
const options: WsGatewayOptions = { credentialSecret: 'an-abort-test-cluster-secret', joinTimeoutMs: 60_000, verify: false };

/** Whether a UDP socket can bind `address` (host:port): true once nothing holds it. */
async function udpPortFree(address: string): Promise<boolean> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const socket = createSocket('udp4');
  return new Promise((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

it('drops connections without a close frame, frees relays and port, and a listed client moves to the next gateway', async () => {
  const a = await made.gateway(options);
  const b = await made.gateway(options);
  const raw = await rawJoin(a.url, { name: 'raw-tab' });
  const moving = await made.client(a, { url: [a.url, b.url], name: 'tab', reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
  const relays = a.sessions().map((s) => s.address);
  expect(relays).toHaveLength(2);
  expect(await udpPortFree(relays[0]!), 'a live relay holds its port').toBe(false);

  await a.abort();
  // 1006: the connection ended without a close frame, as when a process dies.
  expect((await raw.closed).code).toBe(1006);
  expect(a.sessions()).toEqual([]);
  for (const relay of relays) expect(await waitFor(() => udpPortFree(relay), 10_000), `relay ${relay} still bound`).toBe(true);
  expect(await waitFor(() => moving.state === 'open' && moving.url === b.url, 20_000), `state ${moving.state}, url ${moving.url}`).toBe(true);
  expect(moving.counters.moves).toBe(1);
  // Idempotent, close() after it settles, and the port can be listened on again (a restart).
  await a.abort();
  await a.close();
  const again = await made.gateway({ ...options, port: a.port });
  expect(again.port).toBe(a.port);
});
