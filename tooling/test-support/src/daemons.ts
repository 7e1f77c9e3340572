/**
 * Port numbers for test agents (Serf's -bind and -rpc-addr): below the kernel's ephemeral range,
 * so the short-lived connections of `serf members` and of the tests themselves cannot take a port
 * an agent is about to bind; probed free for both TCP and UDP (memberlist binds both on one port).
 * Parallel test files can still race for the same number between the probe and the bind: the
 * harness retries an agent whose bind failed with "address already in use".
 */

import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port handed out here: clear of well-known and registered services' usual spots. */
const LOWEST = 10_000;
/** A range smaller than this is not worth choosing from. */
const ENOUGH = 1_000;
const PROBES = 200;

/** The kernel's ephemeral port range (Linux's defaults when /proc does not say). */
export function ephemeralRange(): { readonly low: number; readonly high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low: low!, high: high! };
  } catch {
    // not Linux
  }
  return { low: 32_768, high: 60_999 };
}

/** The range to pick from: below the ephemeral range, or above it when that leaves too little. */
export function testPortRange(): { readonly from: number; readonly to: number } {
  const { low, high } = ephemeralRange();
  if (low - 1 - LOWEST >= ENOUGH) return { from: LOWEST, to: low - 1 };
  if (65_535 - (high + 1) >= ENOUGH) return { from: high + 1, to: 65_535 };
  throw new Error(`no room for test ports outside the ephemeral range ${low}-${high}`);
}

/** Whether `port` can be bound on `host` for TCP and for UDP right now (both released again). */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const server = createServer();
  const tcp = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => resolve(true));
  });
  if (!tcp) return false;
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const udp = await new Promise<boolean>((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind({ address: host, port, exclusive: true }, () => resolve(true));
  });
  await new Promise<void>((resolve) => {
    try {
      socket.close(() => resolve());
    } catch {
      resolve(); // never bound
    }
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return udp;
}

/** `count` distinct ports, chosen at random in {@link testPortRange} and probed free. */
export async function pickFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const { from, to } = testPortRange();
  const chosen: number[] = [];
  for (let probe = 0; chosen.length < count; probe++) {
    if (probe >= PROBES) throw new Error(`found only ${chosen.length} of ${count} free ports in ${from}-${to} after ${PROBES} probes`);
    const port = from + Math.floor(Math.random() * (to - from + 1));
    if (!chosen.includes(port) && (await portIsFree(port, host))) chosen.push(port);
  }
  return chosen;
}
