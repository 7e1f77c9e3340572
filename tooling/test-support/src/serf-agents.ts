/**
 * Real Serf agents for tests: Debian's `serf` (0.9.4, built on memberlist 0.2.2) on 127.0.0.1.
 *
 * Serf is required: CI installs it (.ci/run). Only with SWIM_SKIP_SERF=1 may a machine without it
 * skip these tests ({@link describeSerf}); otherwise starting an agent fails and says why.
 *
 * Every agent is a {@link spawnDaemon} process: kill9 and cleanup reach its whole process group,
 * and it never outlives the test process. Times are {@link now}: monotonic milliseconds.
 */

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe } from 'vitest';
import { pickFreePorts, spawnDaemon, type Daemon } from './daemons.js';

const DEBIAN_SERF = '/usr/bin/serf';
const HOST = '127.0.0.1';
/** Printed once the agent's memberlist ports and its RPC listener are bound (serf command/agent). */
const RUNNING = 'Serf agent running!';
const ADDRESS_IN_USE = /address already in use/i;
const START_ATTEMPTS = 5;
const START_TIMEOUT_MS = 15_000;
const EXIT_TIMEOUT_MS = 10_000;
const RPC_TIMEOUT_MS = 10_000;
const POLL_MS = 50;
const LOG_TAIL_LINES = 40;

/** Monotonic milliseconds, the clock of every timestamp here. */
export const now = (): number => performance.now();

// --- finding serf ----------------------------------------------------------------------------

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian's /usr/bin/serf, else the first `serf` on PATH; undefined when there is none. */
export function findSerf(): string | undefined {
  if (executable(DEBIAN_SERF)) return DEBIAN_SERF;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, 'serf'))) return join(dir, 'serf');
  }
  return undefined;
}

const MISSING = `serf not found (looked at ${DEBIAN_SERF} and on PATH)`;

/** Why the Serf tests are skipped: only when serf is missing AND SWIM_SKIP_SERF=1. */
export const serfSkipReason: string | undefined =
  findSerf() === undefined && process.env['SWIM_SKIP_SERF'] === '1' ? `${MISSING} and SWIM_SKIP_SERF=1` : undefined;

/** `describe`, or `describe.skip` with the reason in its name when {@link serfSkipReason} says so. */
export function describeSerf(name: string, body: () => void): void {
  if (serfSkipReason === undefined) describe(name, body);
  else describe.skip(`${name} [skipped: ${serfSkipReason}]`, body);
}

/** The serf binary, or an error saying how to get it. */
export function requireSerf(): string {
  const path = findSerf();
  if (path === undefined) {
    throw new Error(`${MISSING}. Install Debian's serf (apt-get install serf; .ci/run does) or set SWIM_SKIP_SERF=1 to skip the Serf tests.`);
  }
  return path;
}

/** A fresh key for -encrypt (32 bytes, base64, what `serf keygen` prints). */
export function newSerfKey(): string {
  return randomBytes(32).toString('base64');
}

// --- agents ----------------------------------------------------------------------------------

export type SerfProfile = 'lan' | 'wan' | 'local';

export interface SerfAgentOptions {
  /** -node; default `serf-<n>` (n counts the agents of the harness). */
  readonly node?: string;
  /** -encrypt: a base64 key (see {@link newSerfKey}). */
  readonly encrypt?: string;
  /** -profile; default lan (memberlist DefaultLANConfig: probe 1 s, suspicion multiplier 4). */
  readonly profile?: SerfProfile;
  /** -tag key=value for each entry. */
  readonly tags?: Readonly<Record<string, string>>;
  /** More agent flags, as they are. */
  readonly args?: readonly string[];
}

export interface SerfAgent {
  readonly name: string;
  /** The memberlist address, "127.0.0.1:port" (UDP and TCP). */
  readonly address: string;
  readonly port: number;
  /** The RPC address for the serf CLI. */
  readonly rpcAddress: string;
  readonly profile: SerfProfile;
  readonly logPath: string;
  readonly pid: number;
  /** When its RPC answered (the agent printed that it runs). */
  readonly startedAt: number;
  /** Set once the process has exited. */
  readonly exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly at: number } | undefined;
}

export interface SerfMember {
  readonly name: string;
  /** "ip:port" as Serf shows it. */
  readonly addr: string;
  readonly port: number;
  /** alive, failed, leaving, left. */
  readonly status: string;
  readonly tags: Readonly<Record<string, string>>;
  /** The Serf (delegate) protocol; memberlist's shows only on the wire. */
  readonly protocol: { readonly min: number; readonly max: number; readonly version: number };
}

export interface WaitOptions {
  readonly timeoutMs: number;
  /** What is awaited, for the failure message (a function can add what it last saw). */
  readonly describe: string | (() => string);
}

interface Running {
  agent: Mutable<SerfAgent>;
  readonly daemon: Daemon;
  /** Settles once the agent has exited and {@link SerfAgent.exit} is set. */
  readonly exited: Promise<void>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface SerfAgentsOptions {
  /** How ports are chosen (tests of the harness swap it); default {@link pickFreePorts}. */
  readonly pickPorts?: (count: number) => Promise<number[]>;
}

/**
 * The agents of one test file: start, join, members, waitFor, kill9, leave; `cleanup()` (in
 * afterEach or afterAll) kills what still runs. Logs go to a temp dir, removed by cleanup unless
 * something failed (the failure message says where they are).
 */
export class SerfAgents {
  #dir: string | undefined;
  readonly #running: Running[] = [];
  readonly #pickPorts: (count: number) => Promise<number[]>;
  #count = 0;
  #failed = false;

  constructor(options: SerfAgentsOptions = {}) {
    this.#pickPorts = options.pickPorts ?? ((count) => pickFreePorts(count, HOST));
  }

  /** Where the agents' logs go (made on first use, and again after a cleanup removed it). */
  get dir(): string {
    return (this.#dir ??= mkdtempSync(join(tmpdir(), 'swim-serf-')));
  }

  get agents(): readonly SerfAgent[] {
    return this.#running.map((r) => r.agent);
  }

  /** Start one agent; retried on fresh ports when its ports were taken meanwhile. */
  async start(options: SerfAgentOptions = {}): Promise<SerfAgent> {
    const serf = requireSerf();
    this.#count++;
    const name = options.node ?? `serf-${this.#count}`;
    const profile = options.profile ?? 'lan';
    const logPath = join(this.dir, `${name}.log`);
    for (let attempt = 1; ; attempt++) {
      const [port, rpcPort] = await this.#pickPorts(2);
      const args = [
        'agent',
        `-node=${name}`,
        `-bind=${HOST}:${port}`,
        `-rpc-addr=${HOST}:${rpcPort}`,
        `-profile=${profile}`,
        '-log-level=debug',
        ...(options.encrypt === undefined ? [] : [`-encrypt=${options.encrypt}`]),
        ...Object.entries(options.tags ?? {}).map(([key, value]) => `-tag=${key}=${value}`),
        ...(options.args ?? []),
      ];
      const running = this.#spawn(serf, args, logPath, { name, port: port!, rpcAddress: `${HOST}:${rpcPort}`, profile });
      const outcome = await this.#started(running);
      if (outcome === 'running') return running.agent;
      const log = readLog(logPath);
      await this.#kill(running);
      if (outcome === 'exited' && ADDRESS_IN_USE.test(log) && attempt < START_ATTEMPTS) {
        // Another test took a port between the probe and the bind: fresh ports. The log is kept for the record.
        this.#running.splice(this.#running.indexOf(running), 1);
        renameSync(logPath, join(this.dir, `${name}.attempt${attempt}.log`));
        continue;
      }
      this.#failed = true;
      throw new Error(
        `serf agent ${name} did not start (${outcome === 'exited' ? `exited ${describeExit(running.agent)}` : `not running after ${START_TIMEOUT_MS} ms`}; attempt ${attempt}): serf ${args.join(' ')}\n${this.#tail(running.agent)}`,
      );
    }
  }

  /** Start `count` agents, one after the other; `options` may depend on the index. */
  async startMany(count: number, options: SerfAgentOptions | ((index: number) => SerfAgentOptions) = {}): Promise<SerfAgent[]> {
    const agents: SerfAgent[] = [];
    for (let i = 0; i < count; i++) agents.push(await this.start(typeof options === 'function' ? options(i) : options));
    return agents;
  }

  #spawn(serf: string, args: string[], logPath: string, known: Pick<SerfAgent, 'name' | 'port' | 'rpcAddress' | 'profile'>): Running {
    const daemon = spawnDaemon(serf, args, { logPath });
    const agent: Mutable<SerfAgent> = { ...known, address: `${HOST}:${known.port}`, logPath, pid: daemon.pid, startedAt: Number.NaN, exit: undefined };
    const exited = daemon.exited.then((exit) => {
      agent.exit = { ...exit, at: now() };
    });
    const running: Running = { agent, daemon, exited };
    this.#running.push(running);
    return running;
  }

  /** Wait for the agent to say it runs, or to exit, polling its log. */
  async #started(running: Running): Promise<'running' | 'exited' | 'timeout'> {
    const deadline = now() + START_TIMEOUT_MS;
    for (;;) {
      if (readLog(running.agent.logPath).includes(RUNNING)) {
        running.agent.startedAt = now();
        return 'running';
      }
      if (running.agent.exit !== undefined) return 'exited';
      if (now() > deadline) return 'timeout';
      await Promise.race([running.exited, sleep(POLL_MS)]);
    }
  }

  /** `serf join` from `agent` to the others' addresses. */
  async join(agent: SerfAgent, ...targets: ReadonlyArray<SerfAgent | string>): Promise<void> {
    const addresses = targets.map((t) => (typeof t === 'string' ? t : t.address));
    await this.#cli(agent, ['join', `-rpc-addr=${agent.rpcAddress}`, ...addresses]);
  }

  /** `serf COMMAND -rpc-addr=<agent's> ARGS...` (e.g. `['event', '-coalesce=false', 'deploy', 'v2']`); its stdout. */
  run(agent: SerfAgent, [command, ...args]: readonly [string, ...string[]]): Promise<string> {
    return this.#cli(agent, [command, `-rpc-addr=${agent.rpcAddress}`, ...args]);
  }

  /** `serf members -format=json` of `agent`, sorted by name (Serf lists them in map order). */
  async members(agent: SerfAgent): Promise<SerfMember[]> {
    const out = await this.#cli(agent, ['members', '-format=json', `-rpc-addr=${agent.rpcAddress}`]);
    let parsed: { members?: unknown };
    try {
      parsed = JSON.parse(out) as { members?: unknown };
    } catch {
      throw new Error(`serf members of ${agent.name}: not JSON: ${out.slice(0, 500)}`);
    }
    if (!Array.isArray(parsed.members)) throw new Error(`serf members of ${agent.name}: no members array: ${out.slice(0, 500)}`);
    return (parsed.members as SerfMember[]).map((m) => ({ ...m, tags: m.tags ?? {} })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** `name`'s status in `agent`'s view, undefined when it does not list it. */
  async statusOf(agent: SerfAgent, name: string): Promise<string | undefined> {
    return (await this.members(agent)).find((m) => m.name === name)?.status;
  }

  /**
   * Poll `condition` (every 50 ms after each answer) until it holds; returns the time it was seen
   * to hold ({@link now}, taken when the poll that saw it returned). A condition that throws counts
   * as not yet, and its last error is reported. On timeout: an error with `describe`, that error
   * and the tail of every agent's log.
   */
  async waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions): Promise<number> {
    const deadline = now() + options.timeoutMs;
    let lastError: unknown;
    for (;;) {
      try {
        if (await condition()) return now();
        lastError = undefined;
      } catch (error) {
        lastError = error;
      }
      if (now() > deadline) {
        this.#failed = true;
        const what = typeof options.describe === 'function' ? options.describe() : options.describe;
        const error = lastError === undefined ? '' : `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
        throw new Error(`timed out after ${options.timeoutMs} ms waiting for: ${what}${error}\n${this.failureContext()}`);
      }
      await sleep(POLL_MS);
    }
  }

  /** SIGKILL the agent's process group; returns when the signal was sent ({@link now}), once it has exited. */
  async kill9(agent: SerfAgent): Promise<number> {
    const running = this.#find(agent);
    const at = now();
    running.daemon.signal();
    await this.#exited(running, 'after SIGKILL');
    return at;
  }

  /** `serf leave` (graceful: leave intent, then memberlist leave), then wait for the agent to exit. Returns when leave returned. */
  async leave(agent: SerfAgent): Promise<number> {
    const running = this.#find(agent);
    await this.#cli(agent, ['leave', `-rpc-addr=${agent.rpcAddress}`]);
    const at = now();
    await this.#exited(running, 'after serf leave');
    return at;
  }

  /** The last lines of `agent`'s log. */
  logTail(agent: SerfAgent, lines = LOG_TAIL_LINES): string {
    return readLog(agent.logPath).split('\n').slice(-lines).join('\n');
  }

  /** Every agent's state and log tail, and where the logs are kept. */
  failureContext(): string {
    return [`serf logs kept in ${this.#dir ?? '(none yet)'}`, ...this.#running.map((r) => this.#tail(r.agent))].join('\n');
  }

  /** Kill every agent still running and its watchdog; remove the logs unless something failed since the last cleanup. */
  async cleanup(): Promise<void> {
    const running = this.#running.splice(0);
    await Promise.all(running.map((r) => this.#kill(r)));
    if (this.#dir !== undefined && !this.#failed) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
    this.#failed = false;
  }

  async #kill(running: Running): Promise<void> {
    if (running.agent.exit === undefined) {
      running.daemon.signal();
      await this.#exited(running, 'at cleanup');
    }
    running.daemon.stopWatchdog();
  }

  async #exited(running: Running, when: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), EXIT_TIMEOUT_MS)));
    const outcome = await Promise.race([running.exited, timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.#failed = true;
      running.daemon.signal();
      throw new Error(`serf agent ${running.agent.name} (pid ${running.agent.pid}) did not exit ${when} within ${EXIT_TIMEOUT_MS} ms\n${this.#tail(running.agent)}`);
    }
  }

  #find(agent: SerfAgent): Running {
    const running = this.#running.find((r) => r.agent.pid === agent.pid);
    if (running === undefined) throw new Error(`serf agent ${agent.name} is not one of this harness's running agents`);
    return running;
  }

  #tail(agent: SerfAgent): string {
    const state = agent.exit === undefined ? 'running' : `exited ${describeExit(agent)}`;
    return `--- serf agent ${agent.name} (${agent.address}, rpc ${agent.rpcAddress}, pid ${agent.pid}, ${state}), last lines of ${agent.logPath}:\n${this.logTail(agent)}`;
  }

  /** Run the serf CLI; its output, or an error with what it printed. */
  #cli(agent: SerfAgent, args: string[]): Promise<string> {
    const serf = requireSerf();
    return new Promise((resolve, reject) => {
      execFile(serf, args, { timeout: RPC_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`serf ${args.join(' ')} (agent ${agent.name}) failed: ${error.message}\n${stdout}${stderr}`.trim()));
        else resolve(stdout);
      });
    });
  }
}

function readLog(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

function describeExit(agent: SerfAgent): string {
  const exit = agent.exit;
  if (exit === undefined) return 'not yet';
  return exit.signal === null ? `with code ${exit.code}` : `on ${exit.signal}`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
