/**
 * `swim agent --query-handler NAME=COMMAND`: queries answered by shell commands, as Serf's agent
 * runs its `query` event handlers (serf cmd/serf/command/agent/invoke.go invokeEventScript): the
 * command runs under /bin/sh -c with SERF_EVENT=query, SERF_QUERY_NAME, SERF_QUERY_LTIME,
 * SERF_SELF_NAME, SERF_SELF_ROLE and SERF_TAG_<TAG> in its environment and the payload on stdin
 * (a newline added when missing); what it writes to stdout, when it exits 0, is the response.
 * Unlike Serf, stderr is logged rather than sent, the first 8 KiB of stdout are kept (Serf keeps
 * the last), and a command still running at the query's deadline is killed with its process group.
 */
import { spawn } from 'node:child_process';
import { decodeTags } from '@swim/adapter-memberlist';
import type { IncomingQuery, Member } from '@swim/runtime';
import type { QueryHandlerSpec } from '../flags/query-handlers.js';

/** Stdout read from one command (serf invoke.go maxBufSize); the response limit (1024 bytes) applies after. */
export const MAX_HANDLER_OUTPUT_BYTES = 8 * 1024;
/** Stderr kept for the log line of a failed command. */
const MAX_STDERR_BYTES = 1024;
/** After the kill, how long the pipes may stay open (a process that left the group holds them) before we stop waiting. */
const KILL_GRACE_MS = 1_000;
/** Handler processes running at once (the member's maxConcurrentHandlers): a query beyond it is dropped and counted busy. */
export const MAX_HANDLER_PROCESSES = 16;

/** How one run ended, for the log. */
export interface HandlerOutcome {
  readonly query: string;
  readonly command: string;
  /** 'answered' (a response was sent), 'silent' (exit 0, no output), 'failed', 'killed' (deadline), 'unsent' (respond refused it). */
  readonly result: 'answered' | 'silent' | 'failed' | 'killed' | 'unsent';
  readonly detail?: string;
}

export interface QueryHandlerOptions {
  /** Called once per run that did not answer (and for answered ones, for counting); must not throw. */
  readonly report: (outcome: HandlerOutcome) => void;
  /** Monotonic ms on the member's clock (the real one: performance.now()). */
  readonly now?: () => number;
}

/** Register every handler on `member`; returns a function that removes them and kills their running commands. */
export function installQueryHandlers(member: Member, specs: readonly QueryHandlerSpec[], options: QueryHandlerOptions): () => void {
  const running = new Set<() => void>();
  const now = options.now ?? (() => performance.now());
  const removers = specs.map((spec) =>
    member.handleQuery(spec.name, (query) => {
      const remaining = Math.floor(query.deadline - now());
      if (remaining <= 0) return undefined;
      return runHandler(spec, query, handlerEnv(member, query), remaining, running).then(({ output, ...outcome }) => {
        let report: HandlerOutcome = outcome;
        if (output !== undefined) {
          try {
            query.respond(output);
          } catch (error) {
            report = { ...outcome, result: 'unsent', detail: (error as Error).message };
          }
        }
        options.report(report);
        return undefined;
      });
    }),
  );
  return () => {
    for (const remove of removers) remove();
    for (const kill of [...running]) kill();
  };
}

/** serf invokeEventScript's environment for a query event. */
function handlerEnv(member: Member, query: IncomingQuery): NodeJS.ProcessEnv {
  const self = member.member(member.name);
  const tags = self === undefined ? {} : decodeTags(self.meta);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SERF_EVENT: 'query',
    SERF_SELF_NAME: member.name,
    SERF_SELF_ROLE: tags['role'] ?? '',
    SERF_QUERY_NAME: query.name,
    SERF_QUERY_LTIME: String(query.ltime),
  };
  for (const [name, value] of Object.entries(tags)) env[`SERF_TAG_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`] = value;
  return env;
}

type RunResult = (HandlerOutcome & { readonly result: Exclude<HandlerOutcome['result'], 'answered'>; readonly output?: undefined }) | (HandlerOutcome & { readonly result: 'answered'; readonly output: Uint8Array });

function runHandler(spec: QueryHandlerSpec, query: IncomingQuery, env: NodeJS.ProcessEnv, timeoutMs: number, running: Set<() => void>): Promise<RunResult> {
  const base = { query: query.name, command: spec.command };
  return new Promise((resolve) => {
    // Its own process group: the deadline kills the shell and whatever it started.
    const child = spawn('/bin/sh', ['-c', spec.command], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let truncated = false;
    let stderr = '';
    let killed = false;
    const kill = () => {
      killed = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      // A process that left the group (setsid) may hold the pipes open: stop waiting for them.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ ...base, result: 'killed', detail: `still running at the query's deadline (${timeoutMs} ms), killed` });
      }, KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(kill, timeoutMs);
    running.add(kill);
    child.stdout.on('data', (chunk: Buffer) => {
      // Read on to the end (a full pipe would stall the command); keep only the first bytes.
      const room = MAX_HANDLER_OUTPUT_BYTES - stdoutBytes;
      if (chunk.length > room) truncated = true;
      if (room > 0) {
        stdout.push(chunk.subarray(0, room));
        stdoutBytes += Math.min(room, chunk.length);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.slice(0, MAX_STDERR_BYTES - stderr.length);
    });
    // A command that does not read its stdin closes the pipe: not an error of ours.
    child.stdin.on('error', () => {});
    const payload = query.payload;
    child.stdin.end(payload.length > 0 && payload[payload.length - 1] !== 0x0a ? Buffer.concat([payload, Buffer.from('\n')]) : payload);
    let settled = false;
    const finish = (result: RunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running.delete(kill);
      resolve(result);
    };
    child.once('error', (error) => finish({ ...base, result: 'failed', detail: `cannot run /bin/sh: ${error.message}` }));
    child.once('close', (code, signal) => {
      const errText = stderr.trim() === '' ? '' : `: ${stderr.trim().slice(0, 200)}`;
      if (killed) return finish({ ...base, result: 'killed', detail: `still running at the query's deadline (${timeoutMs} ms), killed` });
      if (code !== 0) return finish({ ...base, result: 'failed', detail: `${signal === null ? `exit code ${code}` : `killed by ${signal}`}${errText}` });
      if (stdoutBytes === 0) return finish({ ...base, result: 'silent' });
      const output = new Uint8Array(Buffer.concat(stdout));
      finish({ ...base, result: 'answered', output, ...(truncated ? { detail: `output truncated to ${MAX_HANDLER_OUTPUT_BYTES} bytes` } : {}) });
    });
  });
}
