/** What counts as loopback for the control endpoint: where it may listen without a token, and which Host headers it answers. */
import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1, and IPv4-mapped 127.x (::ffff:127.0.0.1). */
export function isLoopbackIp(host: string): boolean {
  const lower = host.toLowerCase();
  if (isIP(lower) === 4) return lower.startsWith('127.');
  if (isIP(lower) !== 6) return false;
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped !== null && isIP(mapped[1]!) === 4 && mapped[1]!.startsWith('127.');
}

/** A loopback IP or the name `localhost` (what a Host header may name; a DNS-rebound name may not). */
export function isLoopbackName(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackIp(host);
}
