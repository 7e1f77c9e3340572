/**
 * The control endpoint against what a web page or another local process can send it (issue 10,
 * finding 6), on real `swim agent` processes: a cross-origin form POST /leave, a DNS-rebound Host,
 * a `text/plain` body, a join naming 3,000 seeds, an oversized body; the optional token, passed by
 * every subcommand through `--rpc-token` or SWIM_RPC_TOKEN; a non-loopback `--rpc` without a token.
 */
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, membersOf, startAgent, swim, until, type Agent } from './agents.js';

afterAll(killAll);

const TOKEN = 'test-token-0123456789abcdef';

interface RawAnswer {
  readonly status: number;
  readonly body: { error?: string; [key: string]: unknown };
}

/** One HTTP request with exactly these headers (node:http lets a test set Host and Origin, as a browser or an attacker would). */
function send(rpc: string, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const url = new URL(`http://${rpc}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), method, path, headers, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as RawAnswer['body'] }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} within 20 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const json = (body: unknown) => ({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(JSON.stringify(body))) });

/** A TCP listener that counts connections and closes each at once (a seed that refuses to talk). */
async function countingListener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as { port: number }).port, connections: () => connections };
}

describe.concurrent('control endpoint: browser-shaped and oversized requests', () => {
  it('refuses a cross-origin POST /leave, a text/plain body and a foreign Host; the agent stays', { timeout: 180_000 }, async () => {
    const agent = await startAgent('target');
    const port = new URL(`http://${agent.rpc}`).port;

    // A page at evil.example submitting a form: Origin header, text/plain body (no CORS preflight).
    const fromPage = await send(agent.rpc, 'POST', '/leave', { origin: 'http://evil.example', 'content-type': 'text/plain' }, '{}');
    expect(fromPage.status).toBe(403);
    expect(fromPage.body.error).toMatch(/Origin/);
    // The same without the Origin header: still not JSON.
    const textPlain = await send(agent.rpc, 'POST', '/leave', { 'content-type': 'text/plain', 'content-length': '2' }, '{}');
    expect(textPlain.status).toBe(415);
    expect(textPlain.body.error).toBe('a POST body must be Content-Type: application/json, got text/plain');
    const noType = await send(agent.rpc, 'POST', '/leave', {});
    expect(noType.status).toBe(415);
    // DNS rebinding: evil.example now resolves to 127.0.0.1; the browser still sends its name.
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
      const rebound = await send(agent.rpc, 'GET', '/members', { host });
      expect(rebound.status, `Host: ${host}`).toBe(403);
    }
    const rebindLeave = await send(agent.rpc, 'POST', '/leave', { host: `evil.example:${port}`, ...json({}) }, '{}');
    expect(rebindLeave.status).toBe(403);
    // Loopback names with the right port are fine.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `127.1.2.3:${port}`]) {
      expect((await send(agent.rpc, 'GET', '/members', { host })).status, `Host: ${host}`).toBe(200);
    }

    // The agent did not leave: still running, itself alive, no leave logged.
    expect(agent.child.exitCode).toBe(null);
    expect((await membersOf(agent)).members).toMatchObject([{ name: 'target', state: 'alive' }]);
    expect(agent.lines.map((line) => line.event)).not.toContain('leave');
  });

  it('refuses a join of 3,000 seeds without dialling any, oversized bodies and seeds', { timeout: 180_000 }, async () => {
    const agent = await startAgent('joiner');
    const listener = await countingListener();
    try {
      const seed = `127.0.0.1:${listener.port}`;
      const many = { seeds: Array.from({ length: 3000 }, () => seed) };
      const flood = await send(agent.rpc, 'POST', '/join', json(many), JSON.stringify(many));
      expect(flood.status).toBe(400);
      expect(flood.body.error).toBe('at most 64 seeds per join, got 3000');

      const longSeed = { seeds: [`${'a'.repeat(400)}:7946`] };
      const long = await send(agent.rpc, 'POST', '/join', json(longSeed), JSON.stringify(longSeed));
      expect(long.status).toBe(400);
      expect(long.body.error).toBe('seed 0 is 405 characters, more than 300');
      const badSeeds = { seeds: ['nowhere', 7] };
      const bad = await send(agent.rpc, 'POST', '/join', json(badSeeds), JSON.stringify(badSeeds));
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe("seed 'nowhere': expected HOST:PORT; seed 1 is not a string");

      // A body over 64 KiB is refused from its declared length, before it is read.
      const huge = await send(agent.rpc, 'POST', '/join', { 'content-type': 'application/json', 'content-length': String(1 << 20) });
      expect(huge.status).toBe(413);

      // One well-formed join to the listener: its connection is the first and only one the listener
      // ever sees, so none of the refused joins dialled anything.
      const one = { seeds: [seed] };
      const marker = await send(agent.rpc, 'POST', '/join', json(one), JSON.stringify(one));
      expect(marker.status).toBe(502);
      await until('the listener sees the one join', 30_000, () => listener.connections() > 0);
      expect(listener.connections()).toBe(1);
      expect(agent.child.exitCode).toBe(null);
    } finally {
      listener.server.close();
    }
  });

  it('GET /stats reports the event-loop delay and the resident memory', { timeout: 120_000 }, async () => {
    const agent = await startAgent('stats');
    const stats = await send(agent.rpc, 'GET', '/stats', {});
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ name: 'stats', counters: expect.any(Object), transport: expect.any(Object) });
    const proc = stats.body['process'] as { rssBytes: number; eventLoopDelayMs: { p50: number; p99: number; max: number } };
    expect(proc.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    for (const key of ['p50', 'p99', 'max'] as const) expect(proc.eventLoopDelayMs[key]).toBeGreaterThanOrEqual(0);
    expect(proc.eventLoopDelayMs.max).toBeGreaterThanOrEqual(proc.eventLoopDelayMs.p99);
    const cli = await swim(['stats', '--rpc', agent.rpc]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^process\.eventLoopDelayMs\.p99 \d/m);
  });
});

describe.concurrent('control endpoint: token', () => {
  it('with a token (from SWIM_RPC_TOKEN) every request needs it; every subcommand passes it by flag or environment', { timeout: 180_000 }, async () => {
    const agent: Agent = await startAgent('guarded', { env: { SWIM_RPC_TOKEN: TOKEN } });
    const missing = await send(agent.rpc, 'GET', '/members', {});
    expect(missing.status).toBe(401);
    const wrong = await send(agent.rpc, 'GET', '/members', { authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect((await send(agent.rpc, 'GET', '/members', { authorization: `Bearer ${TOKEN.slice(0, -1)}` })).status).toBe(401);
    expect((await send(agent.rpc, 'POST', '/leave', json({}), '{}')).status).toBe(401);
    expect((await send(agent.rpc, 'GET', '/members', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);

    const [noToken, byFlag, byEnv, wrongFlag] = await Promise.all([
      swim(['members', '--rpc', agent.rpc]),
      swim(['members', '--rpc', agent.rpc, '--rpc-token', TOKEN, '--json']),
      swim(['stats', '--rpc', agent.rpc], { SWIM_RPC_TOKEN: TOKEN }),
      swim(['stats', '--rpc', agent.rpc, '--rpc-token', `${TOKEN}x`], { SWIM_RPC_TOKEN: TOKEN }),
    ]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('this agent requires a token');
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(JSON.parse(byFlag.stdout)).toMatchObject({ self: 'guarded' });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(byEnv.stdout).toContain('name guarded');
    // The flag wins over the environment.
    expect(wrongFlag.code).toBe(1);
    expect(wrongFlag.stderr).toContain('wrong token');
    // join reaches the agent (which then fails to reach the seed: 502, not 401).
    const joined = await swim(['join', '--rpc', agent.rpc, '127.0.0.1:1'], { SWIM_RPC_TOKEN: TOKEN });
    expect(joined.code).toBe(1);
    expect(joined.stderr).toMatch(/^swim: could not join through any seed/);
    expect((await swim(['leave', '--rpc', agent.rpc])).code).toBe(1);
    expect(agent.child.exitCode).toBe(null);
    const left = await swim(['leave', '--rpc', agent.rpc, '--rpc-token', TOKEN]);
    expect(left.code, left.stderr).toBe(0);
    expect(await agent.exited).toBe(0);
  });

  it('refuses a non-loopback --rpc without a token; with one, any Host is answered if it carries the token', { timeout: 180_000 }, async () => {
    const refused = await swim(['agent', '--name', 'open', '--bind', '127.0.0.1:0', '--rpc', '0.0.0.0:0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('swim: --rpc 0.0.0.0 is not a loopback address: set --rpc-token (or SWIM_RPC_TOKEN)');
    const short = await swim(['agent', '--name', 'open', '--bind', '127.0.0.1:0', '--rpc', '0.0.0.0:0', '--rpc-token', 'short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('--rpc-token: the token is 5 characters, fewer than 16');

    const agent = await startAgent('open', { rpc: '0.0.0.0:0', extra: ['--rpc-token', TOKEN] });
    const port = new URL(`http://${agent.rpc}`).port;
    const rpc = `127.0.0.1:${port}`;
    expect((await send(rpc, 'GET', '/members', { host: `swim.example:${port}` })).status).toBe(401);
    expect((await send(rpc, 'GET', '/members', { host: `swim.example:${port}`, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    // Still no web pages, token or not.
    expect((await send(rpc, 'GET', '/members', { origin: 'http://evil.example', authorization: `Bearer ${TOKEN}` })).status).toBe(403);
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  });
});
