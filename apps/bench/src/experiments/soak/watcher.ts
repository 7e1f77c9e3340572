/**
 * What an operator reads from inside each group's namespace: one helper process per group (run
 * with nsenter, as apps/cli/test/namespace-probe.ts) follows every agent's GET /monitor stream
 * (JSON lines) and answers GET requests to their control endpoints, which listen on the
 * namespace's own loopback. Protocol: JSON lines in ({op: watch|unwatch|get}), JSON lines out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { inGroup, type Group } from './network.js';

const HELPER = `
const http = require('node:http');
const streams = new Map();
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
function watch(agent, rpc, epoch) {
  const [host, port] = [rpc.slice(0, rpc.lastIndexOf(':')), Number(rpc.slice(rpc.lastIndexOf(':') + 1))];
  const req = http.request({ host, port, path: '/monitor?format=json', method: 'GET' }, (res) => {
    if (res.statusCode !== 200) { out({ t: 'lost', agent, epoch, why: 'status ' + res.statusCode }); res.resume(); return; }
    out({ t: 'open', agent, epoch, at: Date.now() });
    res.setEncoding('utf8');
    let buf = '';
    res.on('data', (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        out({ t: 'line', agent, epoch, at: Date.now(), line });
      }
    });
    res.on('end', () => out({ t: 'lost', agent, epoch, why: 'ended' }));
    res.on('aborted', () => out({ t: 'lost', agent, epoch, why: 'aborted' }));
    res.on('error', () => {});
  });
  req.on('error', (e) => out({ t: 'lost', agent, epoch, why: String(e.code || e.message) }));
  req.end();
  streams.set(agent, req);
}
require('node:readline').createInterface({ input: process.stdin }).on('line', async (text) => {
  const cmd = JSON.parse(text);
  if (cmd.op === 'watch') { streams.get(cmd.agent)?.destroy(); watch(cmd.agent, cmd.rpc, cmd.epoch); }
  else if (cmd.op === 'unwatch') { streams.get(cmd.agent)?.destroy(); streams.delete(cmd.agent); }
  else if (cmd.op === 'get') {
    try {
      const res = await fetch('http://' + cmd.rpc + cmd.path, { signal: AbortSignal.timeout(cmd.timeoutMs) });
      out({ t: 'reply', id: cmd.id, status: res.status, body: await res.json() });
    } catch (e) { out({ t: 'reply', id: cmd.id, error: String(e) }); }
  }
});
`;

export interface MonitorLine {
  readonly agent: string;
  /** Which start of the agent the stream belongs to. */
  readonly epoch: number;
  /** When the helper read it (ms since the epoch, this machine's clock). */
  readonly at: number;
  /** The line as the agent wrote it (the same text as in its log). */
  readonly text: string;
  readonly line: Record<string, unknown>;
}

export class GroupWatcher {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: { status?: number; body?: unknown; error?: string }) => void>();
  #next = 1;
  onLine: (line: MonitorLine) => void = () => {};
  onLost: (agent: string, epoch: number, why: string) => void = () => {};
  onOpen: (agent: string, epoch: number) => void = () => {};

  constructor(readonly group: Group) {
    const [command, args] = inGroup(group, process.execPath, ['-e', HELPER]);
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.#child.stdin!.on('error', () => {});
    createInterface({ input: this.#child.stdout! }).on('line', (text) => {
      const msg = JSON.parse(text) as { t: string; agent: string; epoch: number; at: number; line: string; why: string; id: number };
      if (msg.t === 'line') {
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(msg.line) as Record<string, unknown>;
        } catch {
          return;
        }
        this.onLine({ agent: msg.agent, epoch: msg.epoch, at: msg.at, text: msg.line, line });
      } else if (msg.t === 'lost') this.onLost(msg.agent, msg.epoch, msg.why);
      else if (msg.t === 'open') this.onOpen(msg.agent, msg.epoch);
      else if (msg.t === 'reply') {
        this.#pending.get(msg.id)?.(msg as never);
        this.#pending.delete(msg.id);
      }
    });
  }

  #send(command: Record<string, unknown>): void {
    this.#child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  watch(agent: string, rpc: string, epoch: number): void {
    this.#send({ op: 'watch', agent, rpc, epoch });
  }

  unwatch(agent: string): void {
    this.#send({ op: 'unwatch', agent });
  }

  /** GET `path` of the control endpoint `rpc`, as JSON; undefined when it does not answer. */
  async get<T>(rpc: string, path: string, timeoutMs = 3000): Promise<T | undefined> {
    const id = this.#next++;
    const reply = await new Promise<{ status?: number; body?: unknown; error?: string }>((resolve) => {
      this.#pending.set(id, resolve);
      this.#send({ op: 'get', id, rpc, path, timeoutMs });
    });
    return reply.status === 200 ? (reply.body as T) : undefined;
  }

  close(): void {
    this.#child.stdin!.end();
    this.#child.kill('SIGKILL');
  }
}
