import { readFileSync } from 'node:fs';

/** Per local UDP port: datagrams the kernel dropped, and bytes waiting in the receive buffer now. */
export interface UdpSocketCounts {
  readonly drops: number;
  readonly queuedBytes: number;
}

const UDP_TABLES = ['/proc/net/udp', '/proc/net/udp6'];

/**
 * {@link UdpSocketCounts} per local port, from Linux's /proc/net/udp and /proc/net/udp6 (the
 * `drops` and `rx_queue` columns), summed over the tables; undefined where the kernel offers no
 * such table. A starved agent reads its socket only between stalls, so its buffer fills: what
 * waits there is read late, and what the kernel drops is never read.
 */
export function udpSocketsByPort(tables: readonly string[] = UDP_TABLES): Map<number, UdpSocketCounts> | undefined {
  const sockets = new Map<number, UdpSocketCounts>();
  let read = false;
  for (const path of tables) {
    let text: string;
    try {
      text = readFileSync(path, 'latin1');
    } catch {
      continue;
    }
    read = true;
    for (const [port, drops, queuedBytes] of parseUdpTable(text)) {
      const had = sockets.get(port);
      sockets.set(port, { drops: drops + (had?.drops ?? 0), queuedBytes: queuedBytes + (had?.queuedBytes ?? 0) });
    }
  }
  return read ? sockets : undefined;
}

/** (local port, drops, bytes in the receive queue) per socket line of one /proc/net/udp table; lines that do not parse are skipped. */
export function parseUdpTable(text: string): Array<[port: number, drops: number, queuedBytes: number]> {
  const out: Array<[number, number, number]> = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 13) continue;
    const port = Number.parseInt(fields[1]!.split(':')[1] ?? '', 16);
    const count = Number(fields[fields.length - 1]);
    const queued = Number.parseInt(fields[4]!.split(':')[1] ?? '', 16);
    if (Number.isInteger(port) && Number.isInteger(count) && Number.isInteger(queued)) out.push([port, count, queued]);
  }
  return out;
}
