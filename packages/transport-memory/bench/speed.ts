/**
 * Simulator speed: simulated seconds per wall-clock second, and traffic per simulated second, for
 * a converged cluster in steady state (LAN preset, healthy network).
 *
 * Run: cd packages/transport-memory && npx tsx bench/speed.ts [sizes...] [--seconds=N]
 *      (or pnpm --filter @swim/transport-memory bench)
 *
 * The workspace packages are imported from their TypeScript sources: this file re-runs itself
 * with `--conditions=@swim/source` when started without it, since plain `tsx` would resolve
 * @swim/core and @swim/runtime to their (possibly missing or stale) dist builds.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CONDITION = '--conditions=@swim/source';
const hasCondition = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)].some(
  (arg) => arg === CONDITION || arg === '-C=@swim/source',
);

if (!hasCondition) {
  const self = fileURLToPath(import.meta.url);
  // Under tsx, execArgv carries its loader, so the child runs TypeScript the same way.
  const child = spawnSync(process.execPath, [CONDITION, ...process.execArgv, self, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const { run } = await import('./speed-run.js');
run(process.argv.slice(2));
