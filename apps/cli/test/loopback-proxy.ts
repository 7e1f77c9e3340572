/**
 * A loopback proxy with fault hooks, for partition tests where network namespaces are not
 * available. Each member gets its own loopback address to bind (127.0.1.i) and a front address to
 * advertise (127.0.2.i, same port on UDP and TCP). The front forwards:
 * - a datagram from member j (recognised by its source address) to member i, sent from j's own
 *   front socket, so i sees it coming from j's advertised address and replies through the proxy;
 * - a TCP connection from member j (the transport dials from its bind address) to member i.
 * `partition(a, b)` drops datagrams and refuses connections between the groups and cuts the
 * connections already open across; `heal()` ends it.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type Server, type Socket } from 'node:net';

interface Entry {
  readonly name: string;
  readonly bindHost: string;
  readonly frontHost: string;
  readonly udp: UdpSocket;
  readonly tcp: Server;
  frontPort: number;
  realPort: number | undefined;
}

export class LoopbackProxy {
  readonly #entries = new Map<string, Entry>();
  readonly #byBindHost = new Map<string, Entry>();
  readonly #group = new Map<string, number>();
  readonly #links = new Set<{ from: Entry; to: Entry; sockets: Socket[] }>();
  dropped = 0;
  refused = 0;

  /** Reserve the front of member `name` (the i-th, 1-based); returns where it binds and what it advertises. */
  async add(name: string, index: number): Promise<{ bind: string; advertise: string }> {
    const bindHost = `127.0.1.${index}`;
    const frontHost = `127.0.2.${index}`;
    const udp = createSocket('udp4');
    const tcp = createServer((socket) => this.#accept(entry, socket));
    const entry: Entry = { name, bindHost, frontHost, udp, tcp, frontPort: 0, realPort: undefined };
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, frontHost, () => resolve());
    });
    entry.frontPort = (tcp.address() as { port: number }).port;
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(entry.frontPort, frontHost, () => resolve());
    });
    udp.on('message', (message, remote) => this.#datagram(entry, message, remote.address));
    this.#entries.set(name, entry);
    this.#byBindHost.set(bindHost, entry);
    return { bind: `${bindHost}:0`, advertise: `${frontHost}:${entry.frontPort}` };
  }

  /** The port member `name` really listens on (at its bind host), once it has started. */
  setRealPort(name: string, port: number): void {
    this.#entry(name).realPort = port;
  }

  partition(groupA: readonly string[], groupB: readonly string[]): void {
    groupA.forEach((name) => this.#group.set(name, 0));
    groupB.forEach((name) => this.#group.set(name, 1));
    for (const link of [...this.#links]) {
      if (!this.#blocked(link.from, link.to)) continue;
      link.sockets.forEach((socket) => socket.destroy());
      this.#links.delete(link);
    }
  }

  heal(): void {
    this.#group.clear();
  }

  async close(): Promise<void> {
    for (const link of this.#links) link.sockets.forEach((socket) => socket.destroy());
    await Promise.all(
      [...this.#entries.values()].map(async (entry) => {
        entry.udp.close();
        await new Promise<void>((resolve) => entry.tcp.close(() => resolve()));
      }),
    );
  }

  #blocked(from: Entry, to: Entry): boolean {
    const a = this.#group.get(from.name);
    const b = this.#group.get(to.name);
    return a !== undefined && b !== undefined && a !== b;
  }

  #datagram(to: Entry, message: Buffer, sourceHost: string): void {
    const from = this.#byBindHost.get(sourceHost);
    if (from === undefined || to.realPort === undefined || this.#blocked(from, to)) {
      this.dropped++;
      return;
    }
    from.udp.send(message, to.realPort, to.bindHost);
  }

  #accept(to: Entry, inbound: Socket): void {
    inbound.on('error', () => {});
    const from = this.#byBindHost.get(inbound.remoteAddress ?? '');
    if (from === undefined || to.realPort === undefined || this.#blocked(from, to)) {
      this.refused++;
      inbound.destroy();
      return;
    }
    const outbound = connect({ host: to.bindHost, port: to.realPort });
    outbound.on('error', () => inbound.destroy());
    const link = { from, to, sockets: [inbound, outbound] };
    this.#links.add(link);
    const forget = () => this.#links.delete(link);
    inbound.on('close', () => (outbound.destroy(), forget()));
    outbound.on('close', () => (inbound.destroy(), forget()));
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry === undefined) throw new RangeError(`no member ${name} in the proxy`);
    return entry;
  }
}
