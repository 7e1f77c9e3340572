/**
 * GET /members of agents that run inside a network namespace: their control endpoint listens on
 * the namespace's own loopback, out of the test's reach, so one helper process inside the namespace
 * asks for the test (a line `ID HOST:PORT` in, a line `ID JSON` out).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { MembersReply } from './agents.js';

const HELPER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  const [id, rpc] = line.split(' ');
  let body;
  try {
    body = await (await fetch('http://' + rpc + '/members', { signal: AbortSignal.timeout(10000) })).json();
  } catch (error) {
    body = { error: String(error) };
  }
  process.stdout.write(id + ' ' + JSON.stringify(body) + '\\n');
});
`;

export class NamespaceProbe {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (body: unknown) => void; reject: (error: Error) => void }>();
  #next = 1;
  #exited: string | undefined;

  constructor(netns: string) {
    this.#child = spawn('nsenter', [`--net=/run/netns/${netns}`, process.execPath, '-e', HELPER], { stdio: ['pipe', 'pipe', 'inherit'] });
    createInterface({ input: this.#child.stdout! }).on('line', (line) => {
      const space = line.indexOf(' ');
      const id = Number(line.slice(0, space));
      this.#pending.get(id)?.resolve(JSON.parse(line.slice(space + 1)));
      this.#pending.delete(id);
    });
    this.#child.once('exit', (code, signal) => {
      this.#exited = `the probe in ${netns} exited (${signal ?? code})`;
      for (const { reject } of this.#pending.values()) reject(new Error(this.#exited));
      this.#pending.clear();
    });
  }

  /** The agent's GET /members, asked from inside its namespace. */
  async members(rpc: string): Promise<MembersReply> {
    const id = this.#next++;
    const body = await new Promise<unknown>((resolve, reject) => {
      if (this.#exited !== undefined) return reject(new Error(this.#exited));
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin!.write(`${id} ${rpc}\n`);
    });
    const error = (body as { error?: unknown }).error;
    if (typeof error === 'string') throw new Error(`GET http://${rpc}/members inside the namespace: ${error}`);
    return body as MembersReply;
  }

  close(): void {
    this.#child.stdin!.end();
    this.#child.kill('SIGKILL');
  }
}
