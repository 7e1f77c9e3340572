/**
 * Chromium driven over the DevTools protocol directly, not through playwright-core: Playwright turns
 * focus emulation on for every page it attaches to, and a page with focus emulation stays visible
 * (Chromium counts it as being captured), so under Playwright a page can be neither hidden nor
 * frozen. Here a page is hidden as a user hides it, by opening another tab in front of it, and
 * frozen with `Page.setWebLifecycleState`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

interface Reply {
  readonly id?: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** One page (a tab) of the browser, on its own DevTools session. */
export interface CdpPage {
  readonly targetId: string;
  /** A DevTools command on the page's session. */
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Evaluate `expression` in the page (awaiting a promise) and return its value, as JSON. */
  evaluate<T>(expression: string): Promise<T>;
}

export interface CdpBrowser {
  /** Open a tab at `url`, in front of the others. */
  open(url: string): Promise<CdpPage>;
  close(): Promise<void>;
}

export async function launchChromium(executable: string, args: readonly string[] = []): Promise<CdpBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'swim-chromium-'));
  // Root in CI: Chromium's sandbox needs an unprivileged user, so it is turned off.
  const child: ChildProcess = spawn(executable, ['--headless', '--no-sandbox', '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--no-first-run', ...args, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Chromium printed no DevTools endpoint within 30 s: ${text.slice(-500)}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (found !== null) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}): ${text.slice(-500)}`)));
  });
  const socket = new WebSocket(endpoint, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, (reply: Reply) => void>();
  socket.on('message', (data: Buffer) => {
    const reply = JSON.parse(data.toString()) as Reply;
    if (reply.id !== undefined) pending.get(reply.id)?.(reply);
    if (reply.id !== undefined) pending.delete(reply.id);
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, (reply) => (reply.error === undefined ? resolve(reply.result ?? {}) : reject(new Error(`${method}: ${reply.error.message}`))));
      socket.send(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }));
    });

  return {
    async open(url) {
      const { targetId } = (await send('Target.createTarget', { url, background: false })) as { targetId: string };
      const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
      return {
        targetId,
        send: (method, params) => send(method, params, sessionId),
        async evaluate<T>(expression: string): Promise<T> {
          const result = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)) as {
            result: { value?: T };
            exceptionDetails?: { text: string; exception?: { description?: string } };
          };
          if (result.exceptionDetails !== undefined) throw new Error(result.exceptionDetails.exception?.description ?? result.exceptionDetails.text);
          return result.result.value as T;
        },
      };
    },
    async close() {
      socket.close();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill();
      await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
