import { readFileSync } from 'node:fs';

/**
 * Datagrams the kernel dropped at each local UDP port because the socket's receive buffer was full
 * (the `drops` column of Linux's /proc/net/udp and /proc/net/udp6). A starved agent reads its
 * socket only between stalls, so its buffer can fill: what it never reads it never refutes.
 * Undefined where the kernel offers no such table.
 */
export function udpDropsByPort(tables: readonly string[] = ['/proc/net/udp', '/proc/net/udp6']): Map<number, number> | undefined {
  const drops = new Map<number, number>();
  let read = false;
  for (const path of tables) {
    let text: string;
    try {
      text = readFileSync(path, 'latin1');
    } catch {
      continue;
    }
    read = true;
    for (const [port, count] of parseUdpTable(text)) drops.set(port, (drops.get(port) ?? 0) + count);
  }
  return read ? drops : undefined;
}

/** (local port, drops) per socket line of one /proc/net/udp table; lines that do not parse are skipped. */
export function parseUdpTable(text: string): Array<[port: number, drops: number]> {
  const out: Array<[number, number]> = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 13) continue;
    const port = Number.parseInt(fields[1]!.split(':')[1] ?? '', 16);
    const count = Number(fields[fields.length - 1]);
    if (Number.isInteger(port) && Number.isInteger(count)) out.push([port, count]);
  }
  return out;
}
