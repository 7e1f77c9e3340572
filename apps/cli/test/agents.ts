/**
 * Real `swim agent` processes for the end-to-end tests: start one (optionally inside a network
 * namespace), follow its JSON log, query its control endpoint, wait for conditions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const LOADER = ['--import', 'tsx', '--conditions=@swim/source'];
const NODE_ARGS = [...LOADER, MAIN];

/**
 * Fast timers for tests, as `--config` overrides: probe every 200 ms; with 5 members a suspicion
 * lasts 800 ms (min) to 4.8 s (max). Dead members are reaped and retried (reconnect) quickly too.
 */
export const FAST_CONFIG = {
  probeIntervalMs: 200,
  probeTimeoutMs: 100,
  adaptiveTimeoutCeilingMs: 100,
  gossipIntervalMs: 50,
  pushPullIntervalMs: 2000,
  gossipToTheDeadMs: 3000,
  reconnectIntervalMs: 1000,
} as const;

/** Config settings as command-line flags: `--config key=value` for each. */
function configFlags(config: Readonly<Record<string, number>>): string[] {
  return Object.entries(config).flatMap(([key, value]) => ['--config', `${key}=${value}`]);
}

/** {@link FAST_CONFIG} as command-line flags. */
export const FAST = configFlags(FAST_CONFIG);

export interface LogLine {
  readonly time: string;
  readonly self: string;
  readonly event: string;
  readonly member?: { name: string; address: string; state: string; incarnation: number };
  readonly [key: string]: unknown;
}

export interface Agent {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  readonly address: string;
  readonly rpc: string;
  readonly exited: Promise<number | null>;
}

export interface StartOptions {
  readonly join?: readonly string[];
  /** Default 127.0.0.1:0. */
  readonly bind?: string;
  /** Run inside this network namespace (`nsenter --net=/run/netns/NAME`; needs root). */
  readonly netns?: string;
  readonly extra?: readonly string[];
  /** Run this built entry point (e.g. dist/main.js) under plain Node instead of the sources under tsx. */
  readonly bin?: string;
  /** `--rpc` (default 127.0.0.1:0). */
  readonly rpc?: string;
  /** Extra environment variables (e.g. SWIM_RPC_TOKEN). */
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags before the entry point (e.g. `--import` of a test fixture). */
  readonly nodeArgs?: readonly string[];
  /** `fast` (default): {@link FAST_CONFIG}; `preset`: the profile's own timers (to compare with another implementation's). */
  readonly timing?: 'fast' | 'preset';
  /** Settings over the fast timers (e.g. a longer gossipToTheDeadMs), with `timing` fast. */
  readonly config?: Readonly<Record<string, number>>;
}

const children: ChildProcess[] = [];

/** This process's environment without a control token of its own (tests pass one explicitly), plus `extra`. */
function childEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (extra['SWIM_RPC_TOKEN'] === undefined) delete env['SWIM_RPC_TOKEN'];
  return env;
}

/** SIGKILL every agent process still running (afterAll). */
export function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export async function startAgent(name: string, options: StartOptions = {}): Promise<Agent> {
  const { join = [], bind = '127.0.0.1:0', netns, extra = [], bin, rpc = '127.0.0.1:0', env = {}, nodeArgs = [], timing = 'fast', config } = options;
  const args = [...nodeArgs, ...(bin === undefined ? NODE_ARGS : [bin]), 'agent', '--name', name, '--bind', bind, '--rpc', rpc, '--log', 'json', '--leave-timeout', '2000'];
  args.push(...extra, ...(timing === 'fast' ? (config === undefined ? FAST : configFlags({ ...FAST_CONFIG, ...config })) : []));
  if (join.length > 0) args.push('--join', join.join(','));
  const [command, argv] = netns === undefined ? [process.execPath, args] : ['nsenter', [`--net=/run/netns/${netns}`, process.execPath, ...args]];
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  children.push(child);
  const lines: LogLine[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<LogLine>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as LogLine;
      lines.push(entry);
      if (entry.event === 'start') resolve(entry);
    });
    void exited.then((code) => reject(new Error(`agent ${name} exited with ${code} before starting: ${stderr}`)));
  });
  const start = await started;
  return { name, child, lines, address: start['address'] as string, rpc: start['rpc'] as string, exited };
}

export interface MembersReply {
  self: string;
  healthScore: number;
  members: Array<{ name: string; address: string; state: string; incarnation: number; tags: Record<string, string>; metaHex?: string }>;
}

export async function membersOf(agent: Agent): Promise<MembersReply> {
  const res = await fetch(`http://${agent.rpc}/members`);
  return (await res.json()) as MembersReply;
}

export function stateOf(reply: MembersReply, name: string): string | undefined {
  return reply.members.find((m) => m.name === name)?.state;
}

/** The view an agent's log implies: the latest logged state of every member it has heard of. */
export function loggedView(agent: Agent): Map<string, { state: string; incarnation: number }> {
  const view = new Map<string, { state: string; incarnation: number }>();
  for (const line of agent.lines) {
    if (line.member !== undefined) view.set(line.member.name, { state: line.member.state, incarnation: line.member.incarnation });
  }
  return view;
}

/** Log lines of `event` about `subject`, in order. */
export function eventsAbout(agent: Agent, event: string, subject: string): LogLine[] {
  return agent.lines.filter((line) => line.event === event && line.member?.name === subject);
}

export async function until(what: string, limitMs: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`timed out after ${limitMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Run `node <argv>` to its end: its exit code and output (killed by `killAll` if still running). */
export function runNode(argv: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `swim <args>` from source (tsx) as a process, with extra environment variables. */
export function swim(args: string[], env: Readonly<Record<string, string>> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runNode([...NODE_ARGS, ...args], env);
}

/** A long-running `swim <args>` (e.g. `swim monitor`) from source, its stdout read line by line as it comes. */
export interface Streaming {
  readonly child: ChildProcess;
  /** Every stdout line so far, with when it arrived. */
  readonly lines: Array<{ readonly text: string; readonly at: number }>;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

export function spawnSwim(args: string[], env: Readonly<Record<string, string>> = {}): Streaming {
  const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  children.push(child);
  const lines: Array<{ text: string; at: number }> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (text) => lines.push({ text, at: Date.now() }));
  // 'close': after the last line of stdout was read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, lines, stderr: () => stderr, exited };
}
