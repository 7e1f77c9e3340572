import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { formatAddress, parseAddress } from './address.js';

/** The part of node:dns/promises `lookup` that resolution uses (a test passes its own). */
export type Lookup = (
  hostname: string,
  options: { all: true; verbatim: true },
) => Promise<
  ReadonlyArray<{
    /** One record's IP address, as text. */
    address: string;
    /** 4 or 6. */
    family: number;
  }>
>;

/**
 * Every "ip:port" that `address` ("host:port" or "[v6]:port") stands for: an IP literal gives
 * itself, a host name one address per A and AAAA record, in the resolver's order (getaddrinfo,
 * so /etc/hosts counts, as for Serf's and Consul's retry-join). Rejects on a malformed address or
 * a name that does not resolve (ENOTFOUND, EAI_AGAIN, ...).
 */
export async function resolveAddress(address: string, lookup: Lookup = dnsLookup as Lookup): Promise<string[]> {
  const parsed = parseAddress(address);
  if (parsed === undefined) throw new RangeError(`bad address ${JSON.stringify(address)}: expected host:port, or [ipv6]:port`);
  if (isIP(parsed.host) !== 0) return [formatAddress(parsed.host, parsed.port)];
  const records = await lookup(parsed.host, { all: true, verbatim: true });
  // formatAddress shows an IPv4-mapped record as IPv4: the same address may appear twice.
  return [...new Set(records.map((record) => formatAddress(record.address, parsed.port)))];
}
