import { createSocket } from 'node:dgram';
import { createUdpTransport, type UdpTransport, type UdpTransportOptions } from '../src/index.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll `condition` every 10 ms; false if it still fails after `timeoutMs` (generous: loaded CI machines). */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** Whether a UDP socket can bind the IPv6 loopback here (containers often lack it). */
export async function ipv6LoopbackAvailable(): Promise<boolean> {
  const socket = createSocket('udp6');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '::1', () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    try {
      socket.close();
    } catch {
      // never bound
    }
  }
}

/** A port nothing listens on right now (bound, read, released). */
export async function freePort(host: string): Promise<number> {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Transports made through `open`, closed together by `closeAll`. */
export function transports(host = '127.0.0.1') {
  const made: UdpTransport[] = [];
  return {
    open: async (options: Partial<UdpTransportOptions> = {}): Promise<UdpTransport> => {
      const transport = await createUdpTransport({ bind: { host, port: 0 }, ...options });
      made.push(transport);
      return transport;
    },
    closeAll: async (): Promise<void> => {
      await Promise.all(made.splice(0).map((t) => t.close()));
    },
  };
}
