/**
 * `pnpm demo --tls-cert FILE --tls-key FILE`: the page over https and the gateway over wss, with a
 * self-signed certificate made here (selfsigned). The demo runs as the command does, in a child
 * process through tsx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PageConfig } from '../src/api.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const MAIN = join(ROOT, 'apps/demo/src/main.ts');

let dir: string;
let cert: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  cert = pems.cert;
  dir = mkdtempSync(join(tmpdir(), 'swim-demo-tls-'));
  writeFileSync(join(dir, 'cert.pem'), pems.cert);
  writeFileSync(join(dir, 'key.pem'), pems.private);
});

afterAll(() => {
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Run the demo with `args`; resolves with its exit code and output, or with the page URL once it prints one. */
function runDemo(args: string[]): Promise<{ code: number | null; stderr: string; url?: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(TSX, ['--conditions=@swim/source', MAIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^open (\S+)/m.exec(stdout)?.[1];
      if (url !== undefined) resolve({ code: null, stderr, url });
    });
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => resolve({ code, stderr }));
  });
}

/** GET `url` trusting the test's certificate only. */
function get(url: string): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: cert, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('serves the page over https and the gateways over wss with the certificate', { timeout: 60_000 }, async () => {
  const started = await runDemo(['--members', '2', '--port', '0', '--quiet', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
  expect(started.url, `the demo did not start: exit ${started.code}: ${started.stderr}`).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
  const page = await get(started.url!);
  expect(page.status).toBe(200);
  expect(page.body).toContain('<html');
  const config = JSON.parse((await get(`${started.url!}api/config`)).body) as PageConfig;
  expect(config.gateways.map((g) => g.name)).toEqual(['gateway-a', 'gateway-b']);
  for (const { url } of config.gateways) {
    expect(url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/swim$/);
    // Each gateway's HTTPS server, with the same certificate, answers a plain request with 426 Upgrade Required.
    expect((await get(url.replace(/^wss:/, 'https:'))).status).toBe(426);
  }

  const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
  child!.kill('SIGTERM');
  expect(await exited).toBe(0);
});

it('--tls-cert without --tls-key, or an unreadable file, is a usage error (exit 2)', { timeout: 60_000 }, async () => {
  const alone = await runDemo(['--port', '0', '--quiet', '--tls-cert', join(dir, 'cert.pem')]);
  expect(alone.code).toBe(2);
  expect(alone.stderr).toContain('--tls-cert and --tls-key go together');
  const missing = await runDemo(['--port', '0', '--quiet', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'nope.pem')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`--tls-key: cannot read ${join(dir, 'nope.pem')}: ENOENT`);
});
