import { isIP } from 'node:net';

/** A parsed transport address: a host (IP literal or name) and a port. */
export interface HostPort {
  /** An IP literal (IPv6 without brackets) or a host name. */
  readonly host: string;
  /** The port number, 1 to 65535 from {@link parseAddress}. */
  readonly port: number;
}

/** "host:port", or "[v6]:port" for an IPv6 literal. IPv4-mapped IPv6 ("::ffff:1.2.3.4") is shown as IPv4. */
export function formatAddress(host: string, port: number): string {
  const plain = unmapIPv4(host);
  return isIP(plain) === 6 ? `[${plain}]:${port}` : `${plain}:${port}`;
}

/** The inverse of {@link formatAddress}; undefined when `address` is not "host:port" / "[v6]:port" with a port in 1..65535. */
export function parseAddress(address: string): HostPort | undefined {
  if (typeof address !== 'string') return undefined;
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0 || address[close + 1] !== ':') return undefined;
    host = address.slice(1, close);
    portText = address.slice(close + 2);
    if (isIP(host) !== 6) return undefined;
  } else {
    const colon = address.lastIndexOf(':');
    if (colon <= 0) return undefined;
    host = address.slice(0, colon);
    portText = address.slice(colon + 1);
    if (host.includes(':')) return undefined; // a bare IPv6 literal needs brackets
  }
  if (!/^\d{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  return { host, port };
}

/** The IPv4 address inside an IPv4-mapped IPv6 one ("::ffff:1.2.3.4"); any other host unchanged. */
export function unmapIPv4(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('::ffff:')) {
    const rest = host.slice(7);
    if (isIP(rest) === 4) return rest;
  }
  return host;
}
