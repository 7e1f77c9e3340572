// Pack-install test: what `pnpm publish` would upload works for a user. Builds @swim/core,
// @swim/runtime and @swim/transport-memory, packs each with `pnpm pack` (which rewrites
// `workspace:*` to real versions), installs the three tarballs with plain npm into a scratch
// project outside the repository, and runs a plain ESM script (no tsx, no custom conditions, so
// the `default` → dist/ entries) that starts a three-member cluster on the memory transport in
// virtual time and prints what each member sees.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const packages = ['core', 'runtime', 'transport-memory'] as const;

const smokeScript = `
import { createRequire } from 'node:module';
import { MEMBER_STATES } from '@swim/core';
import { Member } from '@swim/runtime';
import { Simulation } from '@swim/transport-memory';

if (!MEMBER_STATES.includes('alive')) throw new Error('@swim/core: unexpected MEMBER_STATES');
for (const name of ['@swim/core', '@swim/runtime', '@swim/transport-memory']) {
  console.log('resolved', name, '->', import.meta.resolve(name).replace(/^.*\\/node_modules\\//, 'node_modules/'));
}

// Three members on virtual time (seeded, deterministic): n1 and n2 join through n0.
const sim = new Simulation({ seed: 42 });
const members = sim.startCluster(3);
const names = members.map((m) => m.name);
const aliveSeenBy = (m) => m.members().filter((v) => v.state === 'alive').map((v) => v.name).sort();
const took = sim.runUntil(() => members.every((m) => aliveSeenBy(m).length === names.length), 30_000);
for (const m of members) {
  if (!(m instanceof Member)) throw new Error('two copies of @swim/runtime were installed');
  console.log(m.name + ' sees alive: ' + aliveSeenBy(m).join(','));
}
console.log('all ' + names.length + ' members see each other alive after ' + took + ' ms of virtual time');

// ESM only, yet require() works on Node >= 20.19 (why attw runs with --profile esm-only).
const required = createRequire(import.meta.url)('@swim/core');
console.log('require(@swim/core): ' + typeof required.SwimCore);
`;

/** pnpm: the one running us when started by a pnpm script (it may not be on PATH under `npx pnpm`), else from PATH. */
function pnpmCommand(args: readonly string[]): [string, string[]] {
  const execpath = process.env['npm_execpath'];
  if (execpath && /pnpm/i.test(execpath)) return /\.[cm]?js$/.test(execpath) ? [process.execPath, [execpath, ...args]] : [execpath, [...args]];
  return ['pnpm', [...args]];
}

describe('packed tarballs install and run', () => {
  const temp = mkdtempSync(join(tmpdir(), 'swim-pack-install-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  const run = (command: string, args: readonly string[], cwd: string): string =>
    execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });

  it(
    'core + runtime + transport-memory: pack, npm install, run a 3-member cluster',
    () => {
      // 1. Build the three packages (and what they depend on); turbo replays cached builds.
      run(join(root, 'node_modules/.bin/turbo'), ['run', 'build', '--concurrency=2', '--output-logs=errors-only', ...packages.map((p) => `--filter=./packages/${p}`)], root);

      // 2. Pack each into temp/tarballs.
      const tarballs = join(temp, 'tarballs');
      mkdirSync(tarballs);
      const tarballOf: Record<string, string> = {};
      for (const p of packages) {
        const before = new Set(readdirSync(tarballs));
        run(...pnpmCommand(['pack', '--pack-destination', tarballs]), join(root, 'packages', p));
        const created = readdirSync(tarballs).filter((f) => !before.has(f));
        expect(created, `pnpm pack in packages/${p}`).toHaveLength(1);
        tarballOf[p] = join(tarballs, created[0]!);
      }

      // 3. The packed manifests name real versions, not workspace:*.
      const versions: Record<string, string> = {};
      const packed: Record<string, { name: string; version: string; dependencies?: Record<string, string> }> = {};
      for (const p of packages) {
        packed[p] = JSON.parse(run('tar', ['-xzOf', tarballOf[p]!, 'package/package.json'], temp));
        versions[packed[p]!.name] = packed[p]!.version;
      }
      for (const p of packages) {
        for (const [dep, range] of Object.entries(packed[p]!.dependencies ?? {})) {
          expect(range, `${packed[p]!.name} depends on ${dep}`).not.toMatch(/^workspace:/);
          if (dep in versions) expect(range, `${packed[p]!.name} depends on ${dep}`).toBe(versions[dep]);
        }
      }
      expect(packed['runtime']!.dependencies?.['@swim/core']).toBe(versions['@swim/core']);

      // 4. A scratch project outside the repository, installed with plain npm.
      const project = join(temp, 'project');
      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify(
          {
            name: 'swim-pack-install-smoke',
            private: true,
            type: 'module',
            dependencies: Object.fromEntries(packages.map((p) => [packed[p]!.name, `file:${tarballOf[p]}`])),
          },
          null,
          2,
        ),
      );
      writeFileSync(join(project, 'smoke.mjs'), smokeScript);
      run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', '--cache', join(temp, 'npm-cache')], project);

      // 5. Plain node: no tsx, no @swim/source condition.
      const output = run(process.execPath, ['smoke.mjs'], project);
      console.log(output);
      expect(output).toContain('resolved @swim/core -> node_modules/@swim/core/dist/index.js');
      expect(output).toContain('resolved @swim/runtime -> node_modules/@swim/runtime/dist/index.js');
      expect(output).toContain('resolved @swim/transport-memory -> node_modules/@swim/transport-memory/dist/index.js');
      for (const name of ['n0', 'n1', 'n2']) expect(output).toContain(`${name} sees alive: n0,n1,n2`);
      expect(output).toMatch(/all 3 members see each other alive after \d+ ms of virtual time/);
      expect(output).toContain('require(@swim/core): function');
    },
    120_000,
  );
});
