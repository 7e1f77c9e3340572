/**
 * What relaying costs a gateway: N raw WebSocket clients join, then for `--seconds` every client
 * sends `--tab-rate` packets a second to other clients' relays (tab-to-tab gossip through one
 * gateway) and a UDP socket standing for the cluster sends `--udp-rate` datagrams a second to every
 * relay. Traffic goes in bursts every `--tick` ms, as gossip rounds do. The gateway runs alone in a
 * child process; printed: its CPU (ms per second, and per member per second), event-loop delay
 * p50/p99/max, frames delivered and the gateway's counters.
 *
 *   npx tsx --conditions=@swim/source packages/transport-ws/test/measure/relay-load.ts [--clients 300] [--seconds 10]
 *
 * `--gateway <path>` loads createWsGateway from another source tree (e.g. an older checkout) to compare;
 * `--encrypt` gives the relays a key; `--strace <file>` runs the gateway under `strace -f -c` and
 * writes its syscall counts there (slower: compare counts, not times, with it); `--prof <dir>`
 * writes the gateway's CPU profile there.
 */
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { encodePacket as encodeSwim } from '@swim/core';
import { Keyring } from '@swim/encryption';
import type { createWsGateway as CreateWsGateway } from '../../src/node/index.js';
import { encodePacket } from '../../src/protocol/framing.js';
import { rawJoin, type RawClient } from '../raw.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '10' },
    'tab-rate': { type: 'string', default: '10' },
    'udp-rate': { type: 'string', default: '5' },
    tick: { type: 'string', default: '200' },
    'join-rate': { type: 'string', default: '0' },
    gateway: { type: 'string' },
    encrypt: { type: 'boolean', default: false },
    strace: { type: 'string' },
    prof: { type: 'string' },
    child: { type: 'boolean', default: false },
  },
});

interface Sample {
  readonly cpuMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly rssMiB: number;
  readonly counters: Record<string, unknown>;
}

if (values.child) await runGateway();
else await load();

async function runGateway(): Promise<void> {
  const source = values.gateway === undefined ? '../../src/node/index.js' : pathToFileURL(values.gateway).href;
  const { createWsGateway } = (await import(source)) as { createWsGateway: typeof CreateWsGateway };
  const encryption = values.encrypt ? { encryption: { keyring: Keyring.from([new Uint8Array(32).fill(7)]) } } : {};
  const gateway = await createWsGateway({ maxSessions: 5_000, maxSessionsPerIp: 5_000, rateLimit: false, joinTimeoutMs: 600_000, ...encryption });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let cpu = process.cpuUsage();
  process.on('message', (message) => {
    if (message === 'close') return void gateway.close().then(() => process.exit(0));
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const sample: Sample = {
      cpuMs: (used.user + used.system) / 1000,
      p50Ms: delay.percentile(50) / 1e6,
      p99Ms: delay.percentile(99) / 1e6,
      maxMs: delay.max / 1e6,
      rssMiB: Math.round(process.memoryUsage().rss / 1024 / 1024),
      counters: { ...gateway.counters },
    };
    delay.reset();
    process.send!(sample);
  });
  process.send!({ url: gateway.url });
}

async function load(): Promise<void> {
  const CLIENTS = Number(values.clients);
  const SECONDS = Number(values.seconds);
  const TICK = Number(values.tick);
  const tabPerTick = (Number(values['tab-rate']) * TICK) / 1000;
  const udpPerTick = (Number(values['udp-rate']) * TICK) / 1000;
  const args = ['--child', ...(values.gateway === undefined ? [] : ['--gateway', values.gateway]), ...(values.encrypt ? ['--encrypt'] : [])];
  const nodeArgs = ['--import', 'tsx', '--conditions=@swim/source', ...(values.prof === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values.prof}`])];
  const traced = values.strace === undefined ? {} : { execPath: '/usr/bin/strace', execArgv: ['-f', '-c', '-o', values.strace, '-e', 'trace=writev,write,sendmsg,sendto,recvmsg,recvfrom,accept4,epoll_wait', process.execPath, ...nodeArgs] };
  const child = fork(fileURLToPath(import.meta.url), args, { execArgv: nodeArgs, ...traced });
  const next = <T>(): Promise<T> => new Promise((resolve) => child.once('message', (m) => resolve(m as T)));
  const { url } = await next<{ url: string }>();
  const sample = async (): Promise<Sample> => {
    const answer = next<Sample>();
    child.send('sample');
    return answer;
  };

  const clients: Array<RawClient & { welcome: { address: string } }> = [];
  const joinStarted = Date.now();
  const joinRate = Number(values['join-rate']);
  await sample();
  const joining: Promise<void>[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const join = rawJoin(url, { name: `tab-${i}` }).then((c) => void clients.push(c));
    if (joinRate > 0) {
      joining.push(join);
      await new Promise((r) => setTimeout(r, 1000 / joinRate));
    } else await join;
  }
  await Promise.all(joining);
  const joinSample = await sample();
  const joinMs = Date.now() - joinStarted;

  const udp = createSocket('udp4');
  const datagram = encodeSwim([{ type: 'user', from: 'udp-member', payload: new Uint8Array(120) }]).slice();
  const packets = clients.map((_, i) => encodeSwim([{ type: 'user', from: `tab-${i}`, payload: new Uint8Array(120) }]).slice());
  const relays = clients.map((c) => c.welcome.address.split(':'));
  // Deterministic targets: client i sends its k-th packet of a tick to client (i + 1 + k * 7) % N.
  let credit = { tab: 0, udp: 0 };
  const tick = (): void => {
    credit = { tab: credit.tab + tabPerTick, udp: credit.udp + udpPerTick };
    for (; credit.tab >= 1; credit.tab--) {
      for (const [i, client] of clients.entries()) {
        const target = clients[(i + 1 + Math.floor(credit.tab) * 7) % clients.length]!;
        client.ws.send(encodePacket(target.welcome.address, packets[i]!));
      }
    }
    for (; credit.udp >= 1; credit.udp--) for (const [host, port] of relays) udp.send(datagram, Number(port), host);
  };
  const framesBefore = clients.reduce((n, c) => n + c.frames.length, 0);
  await sample();
  const timer = setInterval(tick, TICK);
  const samples: Sample[] = [];
  for (let s = 0; s < SECONDS; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    samples.push(await sample());
    for (const c of clients) c.frames.length = 0;
  }
  clearInterval(timer);
  const framesAfter = clients.reduce((n, c) => n + c.frames.length, 0);
  void framesBefore;
  void framesAfter;

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
  const cpuPerSecond = median(samples.map((s) => s.cpuMs));
  const totalCpuMs = samples.reduce((sum, s) => sum + s.cpuMs, 0);
  const last = samples.at(-1)!.counters;
  const first = joinSample.counters;
  const delta = (name: string) => (last[name] as number) - (first[name] as number);
  console.log(
    JSON.stringify(
      {
        clients: CLIENTS,
        seconds: SECONDS,
        offered: { tabPacketsPerMemberPerSecond: Number(values['tab-rate']), udpPerMemberPerSecond: Number(values['udp-rate']), tickMs: TICK },
        join: { ms: joinMs, cpuMs: joinSample.cpuMs, p99Ms: joinSample.p99Ms, maxMs: joinSample.maxMs },
        gatewayCpuMsPerSecond: cpuPerSecond,
        gatewayCpuMsPerMemberSecond: Math.round((cpuPerSecond / CLIENTS) * 1000) / 1000,
        // Less sensitive to a busy machine than the loop delay: CPU per packet the gateway relayed (in + out).
        gatewayCpuUsPerPacket: Math.round(((totalCpuMs * 1000) / (delta('packetsIn') + delta('packetsOut'))) * 100) / 100,
        loopDelayMs: { p50: median(samples.map((s) => s.p50Ms)), p99: median(samples.map((s) => s.p99Ms)), worstP99: Math.max(...samples.map((s) => s.p99Ms)), max: Math.max(...samples.map((s) => s.maxMs)) },
        rssMiB: samples.at(-1)!.rssMiB,
        counters: Object.fromEntries(['packetsIn', 'packetsOut', 'packetsDropped', 'packetsShortCircuited', 'internalErrors', 'spoofDropped'].map((n) => [n, last[n] === undefined ? null : delta(n)])),
      },
      null,
      2,
    ),
  );
  for (const client of clients) client.ws.terminate();
  udp.close();
  child.send('close');
}
