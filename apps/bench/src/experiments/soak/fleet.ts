/**
 * The agents: real `swim agent` processes from the built binary (apps/cli/dist/main.js), each with
 * fixed addresses so that a restart comes back where it was, encrypted (--encrypt with a keyring
 * file, so a restart keeps a rotated keyring), --metrics on, JSON log to a file. Every other agent
 * runs with --snapshot. Each runs in a session of its own (setsid): a SIGSTOPped member must not
 * orphan-stop our process group (see attack/processes.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inGroup, type Group, type Network } from './network.js';
import type { ExitEntry } from './timeline.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
export const AGENT_BIN = join(REPO_ROOT, 'apps/cli/dist/main.js');

/**
 * The agents' timers (--config over the lan profile): four times lan's pace, so that faults are
 * seen within seconds, yet slow enough for 24 agents, Prometheus and the checker on two cores. The
 * CLI tests' faster timers (FAST_CONFIG: probe every 200 ms, 100 ms timeout) flap under that load.
 */
export const SOAK_CONFIG: Readonly<Record<string, number>> = {
  probeIntervalMs: 400,
  probeTimeoutMs: 200,
  adaptiveTimeoutCeilingMs: 200,
  gossipIntervalMs: 100,
  pushPullIntervalMs: 5000,
  gossipToTheDeadMs: 3000,
  reconnectIntervalMs: 1000,
};

/** The CLI tests' and the attack suite's timers (apps/cli/test/agents.ts FAST_CONFIG), for the short test. */
export const FAST_CONFIG: Readonly<Record<string, number>> = {
  probeIntervalMs: 200,
  probeTimeoutMs: 100,
  adaptiveTimeoutCeilingMs: 100,
  gossipIntervalMs: 50,
  pushPullIntervalMs: 2000,
  gossipToTheDeadMs: 3000,
  reconnectIntervalMs: 1000,
};

export interface AgentSlot {
  readonly index: number;
  readonly name: string;
  readonly group: Group;
  /** host:port of its UDP/TCP member. */
  readonly address: string;
  /** host:port of its control endpoint (inside its namespace). */
  readonly rpc: string;
  /** host:port of /metrics (reached from the root namespace). */
  readonly metrics: string;
  readonly snapshot: boolean;
  /** Never killed, left or restarted by the nemesis: its process lives through the run (invariant 5). */
  readonly longLived: boolean;
  readonly keyringFile: string;
  readonly snapshotFile: string;
  /** The running process; undefined while down. */
  proc: AgentProcess | undefined;
  /** Processes started in all (restarts included). */
  starts: number;
}

export interface AgentProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly startedAt: number;
  /** Set by the harness before it ends the process on purpose: an exit without it is unexpected. */
  expectedExit: string | undefined;
  exit: { readonly code: number | null; readonly signal: string | null; readonly at: number } | undefined;
  readonly exited: Promise<void>;
  stderrTail: string;
}


/** Ports free for both TCP and UDP on `host` (loopback mode: every agent shares 127.0.0.1). */
async function freePort(host: string): Promise<number> {
  for (;;) {
    const server = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: 0 }, () => resolve((server.address() as { port: number }).port));
    });
    const udp = createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, host, () => resolve(true));
    });
    udp.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (ok) return port;
  }
}

export class Fleet {
  readonly slots: AgentSlot[] = [];
  /** Every exit of an agent process, with why the harness ended it (undefined: it was not ended on purpose). Times: wall ms. */
  readonly exits: ExitEntry[] = [];
  /** Called with every parsed log line of every agent (their stdout, --log json). */
  onLogLine: (slot: AgentSlot, epoch: number, text: string, line: Record<string, unknown>) => void = () => {};
  /** Called once an agent logged its start line (its control endpoint is up). */
  onStarted: (slot: AgentSlot) => void = () => {};
  readonly #logs = new Map<string, WriteStream>();
  #closed = false;

  constructor(
    readonly network: Network,
    readonly dir: string,
    public key: string,
    readonly config: Readonly<Record<string, number>> = SOAK_CONFIG,
  ) {}

  /** `longLived`: how many of the first namespace's agents the nemesis leaves running throughout. */
  async allocate(count: number, longLived: number): Promise<void> {
    const firstGroup = this.network.groups[0]!.members;
    if (longLived >= firstGroup.length) throw new Error(`--long-lived ${longLived}: the first namespace has ${firstGroup.length} agents; at most ${firstGroup.length - 1} can be spared every fault`);
    const spared = new Set(firstGroup.slice(0, longLived));
    for (const group of this.network.groups) {
      for (const index of group.members) {
        const name = `soak-${String(index).padStart(2, '0')}`;
        const ns = group.netns !== undefined;
        const [port, rpcPort, metricsPort] = ns ? [7000 + index, 17000 + index, 18000 + index] : [await freePort(group.host), await freePort('127.0.0.1'), await freePort(group.host)];
        this.slots[index] = {
          index,
          name,
          group,
          address: `${group.host}:${port}`,
          rpc: `127.0.0.1:${rpcPort}`,
          metrics: `${group.host}:${metricsPort}`,
          snapshot: index % 2 === 1,
          longLived: spared.has(index),
          keyringFile: join(this.dir, `${name}.keyring.json`),
          snapshotFile: join(this.dir, `${name}.snapshot`),
          proc: undefined,
          starts: 0,
        };
      }
    }
    if (this.slots.length !== count) throw new Error(`allocated ${this.slots.length} agents, wanted ${count}`);
  }

  running(): AgentSlot[] {
    return this.slots.filter((s) => s.proc !== undefined && s.proc.exit === undefined);
  }

  /**
   * Start the slot's agent, joining these seeds (none: a restarted snapshot agent finds the
   * cluster from its snapshot, as Serf's -rejoin).
   */
  async start(slot: AgentSlot, seeds: readonly string[], startTimeoutMs = 60_000): Promise<AgentProcess> {
    if (this.#closed) throw new Error(`not starting ${slot.name}: the run is being torn down`);
    const args = [AGENT_BIN, 'agent', '--name', slot.name, '--bind', slot.address, '--rpc', slot.rpc, '--metrics', slot.metrics, '--log', 'json', '--leave-timeout', '2000'];
    args.push('--encrypt', this.key, '--keyring-file', slot.keyringFile);
    if (slot.snapshot) args.push('--snapshot', slot.snapshotFile);
    args.push(...Object.entries(this.config).flatMap(([k, v]) => ['--config', `${k}=${v}`]));
    if (seeds.length > 0) args.push('--join', seeds.join(','));
    const [command, argv] = inGroup(slot.group, process.execPath, args);
    const env = { ...process.env };
    delete env['SWIM_RPC_TOKEN'];
    const child = spawn(command, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env, detached: true });
    let log = this.#logs.get(slot.name);
    if (log === undefined) {
      log = createWriteStream(join(this.dir, `${slot.name}.log`), { flags: 'a' });
      this.#logs.set(slot.name, log);
    }
    const logStream = log;
    const write = (text: string) => {
      if (!logStream.writableEnded) logStream.write(text);
    };
    let resolveExited!: () => void;
    const proc: AgentProcess = {
      child,
      pid: child.pid ?? -1,
      startedAt: Date.now(),
      expectedExit: undefined,
      exit: undefined,
      exited: new Promise<void>((resolve) => (resolveExited = resolve)),
      stderrTail: '',
    };
    child.stderr!.on('data', (chunk: Buffer) => {
      proc.stderrTail = (proc.stderrTail + chunk.toString()).slice(-4096);
      write(`# stderr ${chunk.toString()}`);
    });
    child.once('exit', (code, signal) => {
      proc.exit = { code, signal, at: Date.now() };
      this.exits.push({ agent: slot.name, pid: proc.pid, at: proc.exit.at, expected: proc.expectedExit, code, signal, stderr: proc.stderrTail });
      write(`# exit code=${code} signal=${signal} expected=${proc.expectedExit ?? 'no'}\n`);
      resolveExited();
    });
    slot.proc = proc;
    const epoch = ++slot.starts;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${slot.name} did not start within ${startTimeoutMs} ms: ${proc.stderrTail}`)), startTimeoutMs);
      createInterface({ input: child.stdout! }).on('line', (text) => {
        write(`${text}\n`);
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return;
        }
        this.onLogLine(slot, epoch, text, line);
        if (line['event'] === 'start') {
          clearTimeout(timer);
          this.onStarted(slot);
          resolve();
        }
      });
      void proc.exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`${slot.name} exited (${proc.exit?.code ?? proc.exit?.signal}) before starting: ${proc.stderrTail}`));
      });
    });
    return proc;
  }

  /** Send a signal the harness means (the exit that may follow is expected). */
  signal(slot: AgentSlot, signal: NodeJS.Signals, why: string): void {
    const proc = slot.proc;
    if (proc === undefined || proc.exit !== undefined) return;
    if (signal === 'SIGKILL' || signal === 'SIGTERM') proc.expectedExit = why;
    try {
      process.kill(proc.pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }

  /** SIGKILL every agent (SIGCONT first, for a stopped one) and close the log files. */
  async killAll(): Promise<void> {
    this.#closed = true;
    const waits: Array<Promise<void>> = [];
    for (const slot of this.slots) {
      const proc = slot?.proc;
      if (proc === undefined || proc.exit !== undefined) continue;
      proc.expectedExit ??= 'end of the run';
      try {
        process.kill(proc.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
      waits.push(Promise.race([proc.exited, new Promise<void>((r) => setTimeout(r, 5000))]));
    }
    await Promise.all(waits);
    for (const log of this.#logs.values()) log.end();
  }
}

export function binaryMissing(): string | undefined {
  return existsSync(AGENT_BIN) ? undefined : `${AGENT_BIN} is missing: build it first (pnpm --filter @swim/cli... build)`;
}
