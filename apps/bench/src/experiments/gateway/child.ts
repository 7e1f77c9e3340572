/** The parent's side of the bench's processes: start one from its TypeScript entry, ask it, stop it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

export class Child {
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  #next = 1;
  #stderr = '';
  exited: { code: number | null; signal: string | null } | undefined;

  private constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    process.stderr!.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-4096);
    });
    process.stdout!.resume();
    process.on('message', (message: unknown) => {
      const reply = message as { id: number; ok: boolean; value?: unknown; error?: string };
      const waiting = this.#pending.get(reply.id);
      if (waiting === undefined) return;
      this.#pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(new Error(`${this.name}: ${reply.error}`));
    });
    process.once('exit', (code, signal) => {
      this.exited = { code, signal };
      for (const [id, waiting] of this.#pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new Error(`${this.name} exited (${code ?? signal}): ${this.#stderr.trim().split('\n').slice(-3).join(' / ')}`));
        this.#pending.delete(id);
      }
    });
  }

  /**
   * Start `entry` (a .ts file beside this one) under tsx with `settings` as its one JSON argument;
   * resolves once it answers `ready`. `detached`: a session of its own, for a process the bench
   * SIGSTOPs (a stopped member of an orphaned process group gets SIGHUP).
   */
  static async start(name: string, entry: string, settings: unknown, detached = false): Promise<Child> {
    const script = fileURLToPath(new URL(entry, import.meta.url));
    const proc = spawn(process.execPath, ['--import', 'tsx', '--conditions=@swim/source', script, JSON.stringify(settings)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached });
    const child = new Child(name, proc);
    await child.ask('ready', {}, 60_000);
    return child;
  }

  ask<T>(op: string, args: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<T> {
    if (this.exited !== undefined) return Promise.reject(new Error(`${this.name} has exited`));
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.name} did not answer ${op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.process.send({ op, id, ...args });
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (this.exited === undefined) this.process.kill(signal);
  }

  /** SIGKILL, and wait for the exit. */
  async kill(): Promise<void> {
    if (this.exited !== undefined) return;
    const gone = new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
    this.process.kill('SIGKILL');
    await gone;
  }
}
