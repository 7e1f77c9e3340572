/**
 * Stream flood: many TCP connections each sending most of a large frame and then nothing, against
 * a transport with its default caps in a child process. Reports the victim's RSS, the bytes its
 * streams buffer, its longest event-loop stall and whether it still answers a request.
 *
 * Run: cd packages/transport-udp && npx tsx --conditions=@swim/source bench/stream-flood.ts
 *      [--connections=200] [--frame-mib=15] [--sources=200] [--transport=<module exporting createUdpTransport>]
 *
 * Connection i comes from 127.0.0.(2 + i % sources): any 127.x.y.z is the loopback on Linux, so
 * the per-source caps see `sources` different hosts. `--transport` points at another build of the
 * transport (for example an older commit's src/index.ts) to compare.
 */
import { fork } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const MiB = 1024 * 1024;

interface Report {
  readonly rssMiB: number;
  readonly arrayBuffersMiB: number;
  readonly streamBytesBufferedMiB: number | undefined;
  readonly loopMaxMs: number;
  readonly counters: Record<string, unknown>;
  readonly echoMs: number | undefined;
}

const { values } = parseArgs({
  options: {
    victim: { type: 'boolean', default: false },
    connections: { type: 'string', default: '200' },
    'frame-mib': { type: 'string', default: '15' },
    sources: { type: 'string', default: '200' },
    transport: { type: 'string', default: fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
  },
});

if (values.victim) await victim(values.transport);
else await attacker();

/** The transport under attack, answering every stream with its bytes; reports when asked. */
async function victim(modulePath: string): Promise<void> {
  const { createUdpTransport } = (await import(pathToFileURL(modulePath).href)) as typeof import('../src/index.js');
  const t = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  t.listen({ packet: () => {}, stream: (_from, bytes, reply) => reply(bytes) });
  const prober = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  prober.listen({ packet: () => {}, stream: (_from, _bytes, reply) => reply(undefined) });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  process.on('message', (message: string) => {
    if (message === 'reset-loop') return void loop.reset();
    // What stays referenced, not garbage waiting for a collection (the child runs with --expose-gc).
    (globalThis as { gc?: () => void }).gc?.();
    if (message === 'exit') return void Promise.all([t.close(), prober.close()]).then(() => process.exit(0));
    const started = performance.now();
    prober.request(t.address, new Uint8Array(1_000), { timeoutMs: 10_000, expectReply: true }, (result) => {
      const memory = process.memoryUsage();
      const report: Report = {
        rssMiB: memory.rss / MiB,
        arrayBuffersMiB: memory.arrayBuffers / MiB,
        streamBytesBufferedMiB: (t as { streamBytesBuffered?: number }).streamBytesBuffered === undefined ? undefined : t.streamBytesBuffered / MiB,
        loopMaxMs: loop.max / 1e6,
        counters: { ...t.counters },
        echoMs: result.ok ? performance.now() - started : undefined,
      };
      process.send!(report);
    });
  });
  process.send!({ port: t.port });
}

async function attacker(): Promise<void> {
  const connections = Number(values.connections);
  const frameBytes = Math.round(Number(values['frame-mib']) * MiB);
  const sources = Number(values.sources);
  const child = fork(fileURLToPath(import.meta.url), ['--victim', `--transport=${values.transport}`], { execArgv: [...process.execArgv, '--expose-gc'] });
  const next = <T>(): Promise<T> => new Promise((resolve) => child.once('message', (m) => resolve(m as T)));
  const { port } = await next<{ port: number }>();
  const ask = async (): Promise<Report> => {
    const answer = next<Report>();
    child.send('report');
    return answer;
  };
  const before = await ask();
  child.send('reset-loop');

  // Most of a frame: its header and all but one byte of its body, sent as one write per connection.
  const header = Buffer.alloc(4);
  header.writeUInt32BE(frameBytes, 0);
  const body = Buffer.alloc(frameBytes - 1, 1);
  const sockets: Socket[] = [];
  const started = performance.now();
  const settled = Array.from({ length: connections }, (_, i) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: `127.0.0.${2 + (i % sources)}` });
    sockets.push(socket);
    return new Promise<string>((resolve) => {
      socket.on('error', () => {});
      socket.on('close', () => resolve('closed by the victim'));
      socket.on('connect', () => {
        socket.write(header);
        socket.write(body, (error) => resolve(error ? 'closed by the victim' : 'fully written'));
      });
    });
  });
  const outcome = await Promise.race([
    Promise.all(settled),
    new Promise<undefined>((resolve) => setTimeout(resolve, 60_000)),
  ]);
  const floodMs = performance.now() - started;
  // Closes reach the attacker a moment after its writes completed: count what is open now.
  const during = await ask();
  const stillOpen = sockets.filter((s) => !s.destroyed && !s.closed).length;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // a bench: let the victim see the closes
  const after = await ask();
  child.send('exit');

  const tally = new Map<string, number>();
  for (const o of outcome ?? ['(still sending after 60 s)']) tally.set(o, (tally.get(o) ?? 0) + 1);
  const mib = (x: number | undefined) => (x === undefined ? 'n/a' : x.toFixed(1));
  console.log(`stream flood: ${connections} connections x ${(frameBytes / MiB).toFixed(1)} MiB partial frames from ${sources} sources (${values.transport})`);
  console.log(`  attacker after ${(floodMs / 1000).toFixed(1)} s: ${[...tally].map(([k, v]) => `${v} ${k}`).join(', ')}; ${stillOpen} still open`);
  for (const [label, r] of [
    ['before', before],
    ['during', during],
    ['after close', after],
  ] as const) {
    console.log(
      `  ${label.padEnd(11)} RSS ${mib(r.rssMiB)} MiB, arrayBuffers ${mib(r.arrayBuffersMiB)} MiB, streamBytesBuffered ${mib(r.streamBytesBufferedMiB)} MiB, ` +
        `loop max ${r.loopMaxMs.toFixed(0)} ms, echo request ${r.echoMs === undefined ? 'FAILED' : `${r.echoMs.toFixed(1)} ms`}`,
    );
  }
  const c = during.counters;
  console.log(
    `  counters: accepted ${c['streamsAccepted']}, rejected ${c['streamsRejected']} (per source ${c['streamsRejectedPerSource'] ?? 'n/a'}), ` +
      `over budget ${c['streamsOverBudget'] ?? 'n/a'}, over source budget ${c['streamsOverSourceBudget'] ?? 'n/a'}, ` +
      `buffered high water ${c['streamBytesBufferedHighWater'] === undefined ? 'n/a' : `${mib((c['streamBytesBufferedHighWater'] as number) / MiB)} MiB`}`,
  );
}
