/**
 * Step 3: the installed `swim` binary, as an operator runs it: `npx swim --version`, `swim keygen`,
 * then three `swim agent` processes encrypted with that key form a cluster, all see a `kill -9` of
 * one as dead, and the other two leave cleanly (exit 0, seen as left).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runAsync } from '../exec.js';
import type { Packed } from '../pack.js';
import type { Report } from '../report.js';

/** Test timers: probe every 200 ms, so a crash is seen within a few seconds (not the LAN preset's ~10 s). */
const FAST = ['probeIntervalMs=200', 'probeTimeoutMs=100', 'gossipIntervalMs=50', 'pushPullIntervalMs=2000'].flatMap((c) => ['--config', c]);
const WAIT_MS = 30_000;

interface Agent {
  readonly name: string;
  readonly child: ChildProcess;
  readonly address: string;
  readonly rpc: string;
  readonly exited: Promise<number | null>;
}

interface MemberView {
  readonly name: string;
  readonly state: string;
}

export async function checkBinary(report: Report, scratch: string, packed: readonly Packed[]): Promise<void> {
  report.step('3. the installed swim binary: --version, keygen, a cluster of three agents, kill -9, leave');
  const cli = packed.find((p) => p.name === '@swim/cli');
  if (!report.check('@swim/cli is among the packed packages', cli !== undefined)) return;
  const swim = join(scratch, 'node_modules/.bin/swim');
  const swimRun = (args: readonly string[]) => runAsync(swim, args, { cwd: scratch, timeoutMs: 20_000 });

  const version = await runAsync('npx', ['swim', '--version'], { cwd: scratch, timeoutMs: 60_000 });
  report.check('npx swim --version', version.ok && version.stdout.trim() === cli!.version, version.ok ? version.stdout.trim() : version.output);

  const keygen = await swimRun(['keygen']);
  const key = keygen.stdout.trim();
  const keyOk = keygen.ok && Buffer.from(key, 'base64').length === 32 && Buffer.from(key, 'base64').toString('base64') === key;
  if (!report.check('swim keygen prints a base64 32-byte key', keyOk, keygen.ok ? key : keygen.output)) return;

  const agents: Agent[] = [];
  try {
    const a = await startAgent(swim, scratch, 'a', [], key);
    agents.push(a);
    agents.push(await startAgent(swim, scratch, 'b', [a.address], key));
    agents.push(await startAgent(swim, scratch, 'c', [a.address], key));
    const [, b, c] = agents as [Agent, Agent, Agent];
    const viewOf = async (agent: Agent): Promise<MemberView[]> => {
      const result = await swimRun(['members', '--rpc', agent.rpc, '--json']);
      if (!result.ok) throw new Error(`swim members --rpc ${agent.rpc}: ${result.output}`);
      return (JSON.parse(result.stdout) as { members: MemberView[] }).members;
    };
    const stateIn = (view: readonly MemberView[], name: string) => view.find((m) => m.name === name)?.state;

    const formed = await waitFor(async () => {
      const views = await Promise.all(agents.map(viewOf));
      return views.every((v) => ['a', 'b', 'c'].every((n) => stateIn(v, n) === 'alive'));
    });
    if (!report.check('three agents (encrypted with that key) see each other alive (swim members --json)', formed.ok, `${formed.ms} ms`)) return;

    c.child.kill('SIGKILL');
    const killed = await waitFor(async () => {
      const views = await Promise.all([viewOf(a), viewOf(b)]);
      return views.every((v) => stateIn(v, 'c') === 'dead');
    });
    report.check('kill -9 of c: a and b see it dead', killed.ok, `${killed.ms} ms after the kill`);
    report.figures['binary'] = { formedMs: formed.ms, deadAfterKillMs: killed.ms };

    const leaveB = await swimRun(['leave', '--rpc', b.rpc]);
    const bExit = await withTimeout(b.exited, 15_000);
    const seenLeft = await waitFor(async () => stateIn(await viewOf(a), 'b') === 'left');
    report.check('swim leave: b exits 0 and a sees it left', leaveB.ok && bExit === 0 && seenLeft.ok, `leave exit ${leaveB.status}, agent exit ${bExit}, a sees b ${seenLeft.ok ? 'left' : 'not left'}`);
    const leaveA = await swimRun(['leave', '--rpc', a.rpc]);
    const aExit = await withTimeout(a.exited, 15_000);
    report.check('swim leave: a exits 0', leaveA.ok && aExit === 0, `leave exit ${leaveA.status}, agent exit ${aExit}`);
  } finally {
    for (const agent of agents) if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL');
  }
}

async function startAgent(swim: string, cwd: string, name: string, join: readonly string[], key: string): Promise<Agent> {
  const args = ['agent', '--name', name, '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--log', 'json', '--leave-timeout', '2000', '--encrypt', key, ...FAST];
  if (join.length > 0) args.push('--join', join.join(','));
  const child = spawn(swim, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const start = await new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry['event'] === 'start') resolve(entry);
      } catch {
        reject(new Error(`swim agent ${name} wrote a line that is not JSON: ${line}`));
      }
    });
    void exited.then((code) => reject(new Error(`swim agent ${name} exited with ${code} before starting: ${stderr}`)));
  });
  return { name, child, address: String(start['address']), rpc: String(start['rpc']), exited };
}

async function waitFor(condition: () => Promise<boolean>): Promise<{ ok: boolean; ms: number }> {
  const started = Date.now();
  while (Date.now() - started < WAIT_MS) {
    if (await condition()) return { ok: true, ms: Date.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ok: false, ms: Date.now() - started };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return Promise.race([promise, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref())]);
}
