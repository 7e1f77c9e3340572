// Sizing of one agent: the built `swim agent` (plain Node) in a cluster of N other members, all of
// them @swim/runtime members over @swim/transport-udp in this one process on 127.0.0.1 (lan
// profile). Once the agent lists every member alive, and 10 s more, it measures over 30 s: the
// agent's RSS and heap (GET /stats), its open descriptors and CPU (/proc). Needs `pnpm build`.
//   node apps/cli/scripts/sizing.mjs 500
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const { Member } = await import(`${ROOT}packages/runtime/dist/index.js`);
const { createUdpTransport } = await import(`${ROOT}packages/transport-udp/dist/index.js`);
const N = Number(process.argv[2] ?? 0);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const agent = spawn(process.execPath, [`${ROOT}apps/cli/dist/main.js`, 'agent', '--name', 'agent', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--log', 'json'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const start = await new Promise((resolve) =>
  createInterface({ input: agent.stdout }).on('line', (line) => {
    const entry = JSON.parse(line);
    if (entry.event === 'start') resolve(entry);
  }),
);
/** GET a control route; once more if a reused keep-alive connection was closed under us (this process can stall for seconds). */
const get = async (path) => {
  const once = async () => (await fetch(`http://${start.rpc}${path}`)).json();
  return once().catch(once);
};
/** The agent's CPU time so far, ms (utime + stime, in 100 Hz ticks). */
const cpuMs = () => {
  const fields = readFileSync(`/proc/${agent.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const members = [];
for (let i = 0; i < N; i++) members.push(new Member({ name: `m${i}`, transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }) }));
// 16 at a time: the agent accepts 32 stream connections per source address (maxStreamConnectionsPerSource).
const joinOne = async (member) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await member.join([start.address]);
    } catch (error) {
      if (attempt === 20) throw error;
      await sleep(200);
    }
  }
};
for (let i = 0; i < N; i += 16) await Promise.all(members.slice(i, i + 16).map(joinOne));
const began = Date.now();
while ((await get('/members')).members.filter((m) => m.state === 'alive').length !== N + 1) {
  if (Date.now() - began > 600_000) throw new Error('the agent did not list every member within 10 minutes');
  await sleep(1000);
}
await sleep(10_000);
const [cpu0, wall0] = [cpuMs(), Date.now()];
await sleep(30_000);
const cpuPercent = (100 * (cpuMs() - cpu0)) / (Date.now() - wall0);
const { process: proc } = await get('/stats');
const mib = (bytes) => +(bytes / 2 ** 20).toFixed(1);
console.log(
  JSON.stringify({
    members: N + 1,
    rssMiB: mib(proc.rssBytes),
    heapUsedMiB: mib(proc.heapUsedBytes),
    descriptors: readdirSync(`/proc/${agent.pid}/fd`).length,
    agentCpuPercentOfOneCore: +cpuPercent.toFixed(2),
    eventLoopDelayP99Ms: proc.eventLoopDelayMs.p99,
  }),
);
agent.kill('SIGKILL');
await Promise.all(members.map((member) => member.close()));
process.exit(0);
