/** `HOST:PORT` values (`--bind`, `--advertise`, `--rpc`, `--metrics`, seeds). */
import { isIP } from 'node:net';
import type { Command } from '../commands/names.js';
import { UsageError } from './usage-error.js';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * "host:port" or "[v6]:port". `ipOnly`: the host must be an IP literal (what we bind).
 * `allowZero`: port 0 (pick a free port) is allowed.
 */
export function parseHostPort(value: string, options: { readonly ipOnly: boolean; readonly allowZero: boolean }): HostPort | string {
  let host: string;
  let portText: string;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0 || value[close + 1] !== ':') return 'expected [IPv6]:PORT';
    host = value.slice(1, close);
    portText = value.slice(close + 2);
    if (isIP(host) !== 6) return `'${host}' is not an IPv6 address`;
  } else {
    const colon = value.lastIndexOf(':');
    if (colon < 0) return 'expected HOST:PORT';
    host = value.slice(0, colon);
    portText = value.slice(colon + 1);
    if (host.length === 0) return 'missing host';
    if (host.includes(':')) return 'an IPv6 address needs brackets: [IPv6]:PORT';
  }
  if (!/^\d{1,5}$/.test(portText)) return `port '${portText}' is not a number`;
  const port = Number(portText);
  const min = options.allowZero ? 0 : 1;
  if (port < min || port > 65_535) return `port ${port} is out of range (${min}-65535)`;
  if (options.ipOnly && isIP(host) === 0) return `'${host}' is not an IP address`;
  if (!options.ipOnly && !/^[A-Za-z0-9.\-:_]+$/.test(host)) return `'${host}' is not a valid host`;
  return { host, port };
}

export function hostPortFlag(command: Command, flag: string, value: string, options: { readonly ipOnly: boolean; readonly allowZero: boolean }): HostPort {
  const parsed = parseHostPort(value, options);
  if (typeof parsed === 'string') throw new UsageError(`--${flag} '${value}': ${parsed}`, command);
  return parsed;
}
