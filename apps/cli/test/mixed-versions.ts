/**
 * Agents of two releases side by side: the previous release's `swim` (built from its git commit,
 * packed and npm-installed by `pnpm previous-release`, cached outside the repository) and the
 * working tree's built `dist/main.js`, both run by plain Node. Plus what the mixed-version tests
 * watch: each agent's `GET /monitor` stream, its counters.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ROOT, startAgent, type Agent, type LogLine } from './agents.js';

/** The working tree's agent: the package's built `bin` (`pnpm test` builds every package first). */
export const WORKING_TREE_SWIM = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** What `pnpm previous-release` printed: the version, its commit and the installed `swim` entry point. */
export interface PreviousRelease {
  readonly version: string;
  readonly commit: string;
  readonly swim: string;
  readonly cached: boolean;
  readonly ms: number;
}

let builder: ChildProcess | undefined;

/**
 * The previous release's `swim`, from the cache or built now (a cold build takes about 40 s on an
 * idle 2-core machine; its lock makes concurrent test files wait for one build).
 */
export function previousRelease(): Promise<PreviousRelease> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tooling/scripts/release/previous-release.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    builder = child;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      builder = undefined;
      if (code !== 0) return reject(new Error(`pnpm previous-release failed (exit ${code}):\n${stderr}`));
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(last) as PreviousRelease);
      } catch {
        reject(new Error(`pnpm previous-release printed no result line:\n${stdout}\n${stderr}`));
      }
    });
  });
}

/** Stops a build still running when the tests end (its lock is taken over by the next builder). */
export function stopBuilder(): void {
  if (builder !== undefined && builder.exitCode === null) builder.kill('SIGKILL');
}

/**
 * Timers for mixed clusters: the `lan` profile's probing (every second, 500 ms timeout), which a
 * loaded 2-core machine keeps up with (these tests fail on any suspicion of a running agent),
 * with push-pull every 2 s so that one happens within a test, and the dead and left kept for
 * 2 minutes so that an agent restarted under its name always meets the record of its leave and
 * must refute it (the production timers keep it 30 s, longer than a restart takes).
 */
export const MIXED_CONFIG = { pushPullIntervalMs: 2000, gossipToTheDeadMs: 120_000 } as const;

/** A key every agent of an encrypted test shares (base64 of 32 bytes). */
export const SHARED_KEY = 'bWl4ZWQtdmVyc2lvbnMgY2x1c3RlciBrZXkgMzIgYnk=';

/** An agent with the release it runs. */
export interface VersionedAgent extends Agent {
  readonly release: string;
  readonly bin: string;
}

export interface VersionedOptions {
  readonly join?: readonly string[];
  readonly bind?: string;
  readonly encrypt?: boolean;
}

/** Starts `swim agent` from `bin` (the previous release's or the working tree's) with {@link MIXED_CONFIG}. */
export async function startVersioned(name: string, release: string, bin: string, { join = [], bind, encrypt = false }: VersionedOptions = {}): Promise<VersionedAgent> {
  const config = Object.entries(MIXED_CONFIG).flatMap(([key, value]) => ['--config', `${key}=${value}`]);
  const agent = await startAgent(name, {
    bin,
    timing: 'preset',
    join,
    ...(bind === undefined ? {} : { bind }),
    extra: [...config, ...(encrypt ? ['--encrypt', SHARED_KEY] : [])],
  });
  return { ...agent, release, bin };
}

/** A log line as a monitor received it. */
export interface Observed {
  readonly observer: string;
  readonly line: LogLine;
  readonly receivedAt: number;
}

/** A `GET /monitor?format=json` stream on one agent, every line kept. */
export interface Monitor {
  readonly observer: string;
  readonly lines: Observed[];
  /** Resolves once the agent answered 200 and the stream is open. */
  readonly open: Promise<void>;
  close(): void;
}

export function monitor(agent: Agent): Monitor {
  const url = new URL(`http://${agent.rpc}`);
  const lines: Observed[] = [];
  let req: ClientRequest | undefined;
  const open = new Promise<void>((resolve, reject) => {
    req = request({ host: url.hostname, port: Number(url.port), path: '/monitor?format=json' }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /monitor on ${agent.name}: ${res.statusCode}`));
      resolve();
      // The agent ends the stream when it stops; close() aborts it, which readline passes on as an error.
      createInterface({ input: res })
        .on('line', (text) => lines.push({ observer: agent.name, line: JSON.parse(text) as LogLine, receivedAt: Date.now() }))
        .on('error', () => {});
      res.on('error', () => {});
    });
    req.on('error', reject);
    req.end();
  });
  return { observer: agent.name, lines, open, close: () => req?.destroy() };
}

/** The counters the mixed-version tests read from `GET /stats`. */
export interface Stats {
  readonly incarnation: number;
  readonly counters: { readonly pushPulls: number; readonly decodeErrors: number; readonly probes: number; readonly unknownMessages?: number };
  readonly encryption?: {
    readonly decryptFailures: number;
    readonly plaintextRefused: number;
    readonly labelMismatches: number;
    readonly packetsDecrypted: number;
    readonly streamsDecrypted: number;
  };
}

export async function statsOf(agent: Agent): Promise<Stats> {
  return (await (await fetch(`http://${agent.rpc}/stats`)).json()) as Stats;
}

/**
 * What an agent received that it could not use: packets or streams it could not decode (0.1.0's
 * decoder drops a packet with anything it does not know), messages of unknown types, envelopes
 * that did not decrypt. Empty when every byte between the versions was understood.
 */
export function undecoded(name: string, stats: Stats, versionRefusals = 0, settled = true): string[] {
  const problems: string[] = [];
  // A joiner of the working tree asks in its newest protocol version first, and a 0.1.0 seed
  // refuses that request as undecodable (docs/compatibility.md, Joining): those, and nothing else
  // (exactly those once `settled`, at most those before).
  const errors = stats.counters.decodeErrors;
  if (settled ? errors !== versionRefusals : errors > versionRefusals) problems.push(`${name}: ${stats.counters.decodeErrors} decode errors (${versionRefusals} expected: refused join requests)`);
  if ((stats.counters.unknownMessages ?? 0) !== 0) problems.push(`${name}: ${stats.counters.unknownMessages} messages of unknown types`);
  if (stats.encryption !== undefined) {
    const { decryptFailures, plaintextRefused, labelMismatches } = stats.encryption;
    if (decryptFailures + plaintextRefused + labelMismatches !== 0) problems.push(`${name}: ${JSON.stringify({ decryptFailures, plaintextRefused, labelMismatches })}`);
  }
  return problems;
}
