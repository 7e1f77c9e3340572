/**
 * Step 6: browser members fail over between gateways from the installed tarballs, under plain Node
 * (no loader, no workspace condition). A UDP member, two gateways sharing a join token, and a
 * member on the browser client (`connectWsTransport` with both URLs): its gateway is aborted (as a
 * crash: no close frames), and the member must come back through the other one under its name, at
 * the new relay address as the UDP member holds it, without the UDP member ever holding it dead or
 * left. The packaged code of @swim/core, @swim/runtime, @swim/transport-udp and @swim/transport-ws
 * (moves, credentials, the client's gateway list) is what runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAsync } from '../exec.js';
import type { Report } from '../report.js';

/** Bound for the whole script; its own waits are shorter and say what they waited for. */
const SCRIPT_TIMEOUT_MS = 90_000;

const FAILOVER_SCRIPT = `
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { connectWsTransport, createWsGateway } from '@swim/transport-ws/node';

const until = async (what, check, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('not within ' + ms + ' ms: ' + what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const token = 'release-check-' + process.pid;
const udp = new Member({ name: 'udp-1', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'local' });
const gateways = [];
for (let i = 0; i < 2; i++) gateways.push(await createWsGateway({ token, seed: udp.address, onError: () => {} }));
const name = 'tab-1';
const transport = await connectWsTransport({ url: gateways.map((g) => g.url), name, token });
const tab = new Member({ name, transport, preset: 'local' });
const downs = [];
udp.on('change', (change) => { if (change.member.name === name && (change.event === 'dead' || change.event === 'leave')) downs.push(change.event); });
await tab.join([transport.seed]);
await until('udp-1 holds tab-1 alive', () => udp.member(name)?.state === 'alive');
const before = tab.address;
const started = Date.now();
await gateways[0].abort();
await until('tab-1 alive at its new relay at udp-1', () => {
  const view = udp.member(name);
  return view?.state === 'alive' && view.address !== before && view.address === tab.address;
});
const result = { before, after: tab.address, ms: Date.now() - started, downs, sessionsOnB: gateways[1].sessions().map((s) => s.name), moves: transport.counters.moves };
await tab.close();
await Promise.all([...gateways.map((g) => g.close()), udp.close()]);
console.log(JSON.stringify(result));
process.exit(0);
`;

interface FailoverResult {
  readonly before: string;
  readonly after: string;
  readonly ms: number;
  readonly downs: readonly string[];
  readonly sessionsOnB: readonly string[];
  readonly moves: number;
}

export async function checkFailover(report: Report, scratch: string): Promise<void> {
  report.step('6. a browser member fails over between two gateways, from the tarballs under plain Node');
  writeFileSync(join(scratch, 'check-failover.mjs'), FAILOVER_SCRIPT);
  const result = await runAsync(process.execPath, ['check-failover.mjs'], { cwd: scratch, timeoutMs: SCRIPT_TIMEOUT_MS });
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  let parsed: FailoverResult | undefined;
  try {
    parsed = result.ok ? (JSON.parse(line) as FailoverResult) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) {
    report.check('gateway aborted: the member moves to the other one', false, result.output);
    return;
  }
  const ok = parsed.downs.length === 0 && parsed.sessionsOnB.includes('tab-1') && parsed.moves === 1 && parsed.after !== parsed.before;
  report.check(
    'gateway aborted: the member moves to the other one, same name, never dead or left',
    ok,
    `${parsed.before} -> ${parsed.after} in ${parsed.ms} ms; moves ${parsed.moves}; dead/left seen: ${parsed.downs.length === 0 ? 'none' : parsed.downs.join(', ')}`,
  );
}
