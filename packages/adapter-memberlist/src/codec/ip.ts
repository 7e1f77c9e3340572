/**
 * memberlist carries a node's address as IP bytes (4 or 16) and a port; the core carries
 * "host:port" strings as `@swim/transport-udp` formatAddress writes them and Node reports a
 * datagram's source: IPv4 dotted, IPv6 in brackets as libuv's inet_ntop prints it (lower case,
 * the longest run of zero groups compressed, `::a.b.c.d` for the IPv4-compatible forms), and an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) shown as plain IPv4. No node:net: the codec is pure.
 */

export interface IpPort {
  /** 4 bytes (IPv4) or 16 (IPv6). */
  readonly ip: Uint8Array;
  /** The port; 1..65535 from {@link parseIpPort}. */
  readonly port: number;
}

/** "1.2.3.4:7946" / "[::1]:7946" for the IP bytes and port; undefined for an IP that is not 4 or 16 bytes. */
export function formatIpPort(ip: Uint8Array, port: number): string | undefined {
  if (ip.length === 4) return `${formatIPv4(ip, 0)}:${port}`;
  if (ip.length !== 16) return undefined;
  if (isIPv4Mapped(ip)) return `${formatIPv4(ip, 12)}:${port}`;
  return `[${formatIPv6(ip)}]:${port}`;
}

/**
 * The IP bytes and port of "1.2.3.4:7946" or "[v6]:7946" (port 1..65535), or why not. IPv4 is
 * written as 4 bytes, IPv6 (IPv4-mapped included) as 16, as Go's net.IP.To4 would leave them.
 */
export function parseIpPort(address: string): IpPort | string {
  if (typeof address !== 'string') return 'an address must be a string';
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0 || address[close + 1] !== ':') return `"${clip(address)}" is not "[IPv6]:port"`;
    host = address.slice(1, close);
    portText = address.slice(close + 2);
  } else {
    const colon = address.lastIndexOf(':');
    if (colon <= 0) return `"${clip(address)}" is not "host:port"`;
    host = address.slice(0, colon);
    portText = address.slice(colon + 1);
    if (host.includes(':')) return `"${clip(address)}": an IPv6 address needs brackets, "[${clip(host)}]:port"`;
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    return `"${clip(address)}" has no port in 1..65535`;
  }
  const port = Number(portText);
  const ip = address.startsWith('[') ? parseIPv6(host) : parseIPv4(host);
  if (ip === undefined) return `"${clip(address)}": memberlist carries an IP address and a port, "${clip(host)}" is no IP literal`;
  // An IPv4-mapped address travels as 16 bytes; its text form is the IPv4 one, as formatAddress shows it.
  return { ip, port };
}

/** Whether `address` is an IP and port written exactly as {@link formatIpPort} writes them (what peers will see). */
export function canonicalAddressProblem(address: string): string | undefined {
  const parsed = parseIpPort(address);
  if (typeof parsed === 'string') return parsed;
  const canonical = formatIpPort(parsed.ip, parsed.port);
  if (canonical !== address) return `"${clip(address)}" reaches peers as "${canonical}": advertise that form`;
  return undefined;
}

export function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const ip = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    // Decimal, no leading zero (libuv inet_pton4, so no octal surprise).
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    ip[i] = value;
  }
  return ip;
}

export function parseIPv6(text: string): Uint8Array | undefined {
  if (text.length === 0 || text.length > 45) return undefined;
  const ip = new Uint8Array(16);
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 2 ? (halves[1] === '' ? [] : halves[1]!.split(':')) : [];
  const groups: number[] = [];
  const tailGroups: number[] = [];
  const readGroups = (parts: string[], into: number[], mayEndInIPv4: boolean): boolean => {
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (mayEndInIPv4 && i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIPv4(part);
        if (v4 === undefined) return false;
        into.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return false;
      into.push(parseInt(part, 16));
    }
    return true;
  };
  const compressed = halves.length === 2;
  if (!readGroups(head, groups, !compressed)) return undefined;
  if (!readGroups(tail, tailGroups, compressed)) return undefined;
  if (compressed) {
    // "::" stands for at least one zero group.
    if (groups.length + tailGroups.length > 7) return undefined;
    while (groups.length + tailGroups.length < 8) groups.push(0);
    groups.push(...tailGroups);
  } else if (groups.length !== 8) {
    return undefined;
  }
  for (let i = 0; i < 8; i++) {
    ip[2 * i] = groups[i]! >>> 8;
    ip[2 * i + 1] = groups[i]! & 0xff;
  }
  return ip;
}

function isIPv4Mapped(ip: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return ip[10] === 0xff && ip[11] === 0xff;
}

function formatIPv4(ip: Uint8Array, at: number): string {
  return `${ip[at]}.${ip[at + 1]}.${ip[at + 2]}.${ip[at + 3]}`;
}

/** libuv inet_ntop6 (from ISC's): what Node prints for a datagram's IPv6 source. */
function formatIPv6(ip: Uint8Array): string {
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push((ip[2 * i]! << 8) | ip[2 * i + 1]!);
  let bestBase = -1;
  let bestLength = 0;
  let base = -1;
  let length = 0;
  for (let i = 0; i <= 8; i++) {
    if (i < 8 && words[i] === 0) {
      if (base === -1) {
        base = i;
        length = 1;
      } else length++;
    } else if (base !== -1) {
      if (bestBase === -1 || length > bestLength) {
        bestBase = base;
        bestLength = length;
      }
      base = -1;
    }
  }
  if (bestBase !== -1 && bestLength < 2) bestBase = -1;
  let text = '';
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLength) {
      if (i === bestBase) text += ':';
      continue;
    }
    if (i !== 0) text += ':';
    if (i === 6 && bestBase === 0 && (bestLength === 6 || (bestLength === 5 && words[5] === 0xffff))) {
      return text + formatIPv4(ip, 12);
    }
    text += words[i]!.toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLength === 8) text += ':';
  return text;
}

/** Addresses in error details are shown, cut short: they are our own or a caller's, never a packet's. */
function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}
