/**
 * How much memory a gateway spends on clients that never read: N raw WebSocket clients join, stop
 * reading their socket, and each gets `--mb` MiB relayed to it, first as one big stream frame sent
 * to its relay over TCP, then in frames under the relays' cap: replies to requests it sends to a
 * TCP server that answers big, then stream requests to its relay. The gateway runs in a child
 * process; its RSS (after a GC) and counters are printed.
 *
 *   npx tsx --conditions=@swim/source packages/transport-ws/test/measure/non-reading-clients.ts [--clients 40] [--mb 5]
 *
 * `--gateway <path>` loads createWsGateway from another source tree (e.g. an older checkout) to compare.
 */
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { connect, createServer, type Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { encodePacket as encodeSwim } from '@swim/core';
import type { createWsGateway as CreateWsGateway } from '../../src/node/index.js';
import { encodeRequest } from '../../src/protocol/framing.js';
import { rawJoin, stopReading, type RawClient } from '../raw.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '40' },
    mb: { type: 'string', default: '5' },
    gateway: { type: 'string' },
    child: { type: 'boolean', default: false },
  },
});

interface Report {
  readonly rssMiB: number;
  readonly counters: Record<string, unknown>;
  readonly queuedBytes: number | null;
}

if (values.child) await runGateway();
else await attack();

/** The child: a gateway that reports its RSS and counters whenever asked. */
async function runGateway(): Promise<void> {
  const source = values.gateway === undefined ? '../../src/node/index.js' : pathToFileURL(values.gateway).href;
  const { createWsGateway } = (await import(source)) as { createWsGateway: typeof CreateWsGateway };
  const gateway = await createWsGateway({ maxSessionsPerIp: 1_000, rateLimit: false });
  process.on('message', (message) => {
    if (message === 'close') return void gateway.close().then(() => process.exit(0));
    (globalThis as { gc?: () => void }).gc?.();
    const sessions = gateway.sessions() as Array<{ bufferedBytes?: number }>;
    const report: Report = {
      rssMiB: Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10,
      counters: { ...gateway.counters },
      queuedBytes: sessions[0]?.bufferedBytes === undefined ? null : sessions.reduce((sum, s) => sum + (s.bufferedBytes ?? 0), 0),
    };
    process.send!(report);
  });
  process.send!({ url: gateway.url });
}

async function attack(): Promise<void> {
  const CLIENTS = Number(values.clients);
  const BYTES_PER_CLIENT = Number(values.mb) * 1024 * 1024;
  const SMALL_FRAME = 60 * 1024; // under the relays' frame cap (maxMessageBytes, 64 KiB)

  const child = fork(fileURLToPath(import.meta.url), ['--child', ...(values.gateway === undefined ? [] : ['--gateway', values.gateway])], {
    execArgv: ['--import', 'tsx', '--conditions=@swim/source', '--expose-gc'],
  });
  const next = <T>(): Promise<T> => new Promise((resolve) => child.once('message', (m) => resolve(m as T)));
  const { url } = await next<{ url: string }>();
  const report = async (): Promise<Report> => {
    const answer = next<Report>();
    child.send('report');
    return answer;
  };
  /** Wait until the gateway's counters stop moving for `quietMs`. */
  const settle = async (quietMs = 1_500, timeoutMs = 120_000): Promise<Report> => {
    const deadline = Date.now() + timeoutMs;
    let last = JSON.stringify((await report()).counters);
    let since = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const now = await report();
      const key = JSON.stringify(now.counters);
      if (key !== last) [last, since] = [key, Date.now()];
      else if (Date.now() - since >= quietMs || Date.now() > deadline) return now;
    }
  };

  const frame = (size: number): Buffer => {
    const out = Buffer.alloc(4 + size, 7);
    out.writeUInt32BE(size, 0);
    return out;
  };
  const sockets: Socket[] = [];
  const streamTo = (relay: string, bytes: Buffer): void => {
    const [host, port] = relay.split(':');
    const socket = connect({ host: host!, port: Number(port) });
    socket.on('error', () => {});
    socket.write(bytes);
    sockets.push(socket);
  };

  // A TCP server answering every request with a SMALL_FRAME reply.
  let served = 0;
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      served++;
      socket.end(frame(SMALL_FRAME));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const serverAddress = `127.0.0.1:${(server.address() as { port: number }).port}`;

  const baseline = await report();
  const clients: Array<RawClient & { welcome: { address: string } }> = [];
  // A datagram from the cluster makes a member count as joined (else the join deadline, 10 s by
  // default, would close the idle clients before the attack is over and free everything).
  const udp = createSocket('udp4');
  for (let i = 0; i < CLIENTS; i++) {
    const client = await rawJoin(url, { name: `idle-${i}` });
    stopReading(client);
    const [host, port] = client.welcome.address.split(':');
    udp.send(new Uint8Array([1]), Number(port), host);
    clients.push(client);
  }
  const joined = await report();

  // 1. One frame of --mb MiB per client, to its relay.
  const big = frame(BYTES_PER_CLIENT);
  for (const client of clients) streamTo(client.welcome.address, big);
  const afterBig = await settle();

  // 2. The same volume per client in 60 KiB frames: results of its requests, 8 at a time.
  const rounds = Math.ceil(BYTES_PER_CLIENT / SMALL_FRAME / 8);
  let id = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [i, client] of clients.entries()) {
      const ask = encodeSwim([{ type: 'user', from: `idle-${i}`, payload: new Uint8Array(1) }]).slice();
      for (let k = 0; k < 8; k++) client.ws.send(encodeRequest(++id, 30_000, true, serverAddress, ask));
    }
    await settle(300);
  }
  const afterResults = await settle();

  // 3. And again as stream requests to its relay.
  const small = frame(SMALL_FRAME);
  for (let round = 0; round < rounds; round++) {
    for (const client of clients) for (let k = 0; k < 8; k++) streamTo(client.welcome.address, small);
    await settle(300);
  }
  const afterSmall = await settle();

  const c = afterSmall.counters;
  const pick = (names: string[]) => Object.fromEntries(names.map((n) => [n, c[n] ?? null]));
  console.log(
    JSON.stringify(
      {
        clients: CLIENTS,
        mibPerClient: BYTES_PER_CLIENT / 1024 / 1024,
        gatewayRssMiB: {
          baseline: baseline.rssMiB,
          clientsJoined: joined.rssMiB,
          afterOneBigFramePerClient: afterBig.rssMiB,
          afterResults: afterResults.rssMiB,
          afterSmallStreams: afterSmall.rssMiB,
          growthOverJoined: Math.round((Math.max(afterBig.rssMiB, afterResults.rssMiB, afterSmall.rssMiB) - joined.rssMiB) * 10) / 10,
        },
        wsQueuedBytes: { afterResults: afterResults.queuedBytes, afterSmallStreams: afterSmall.queuedBytes },
        counters: pick(['openConnections', 'joinTimeouts', 'packetsDropped', 'streamsIn', 'streamsRefused', 'streamsOut', 'requestsRefused', 'resultsDropped', 'bufferedBytes', 'internalErrors']),
        repliesServed: served,
      },
      null,
      2,
    ),
  );
  for (const s of sockets) s.destroy();
  for (const client of clients) client.ws.terminate();
  child.send('close');
  server.close();
  udp.close();
}
