/**
 * Loopback benchmark of @swim/transport-udp: (a) packets per second one transport pair carries
 * without self-inflicted loss, paced and unpaced, sender and receiver in this process; (a2) the
 * same with the receiver in a child process (this file again, with --pps-receiver), against plain
 * node:dgram across two processes; (b) how many LAN-preset @swim/runtime members one Node process
 * hosts over real UDP + TCP on 127.0.0.1 with event-loop delay p99 < 20 ms.
 *
 * Run: cd packages/transport-udp && npx tsx bench/loopback.ts
 *      [--pps-only (a + a2) | --pps-processes (a2 only) | --members-only (b only)]
 *      [--sizes=100,250,500,750,1000] [--seconds=N]   (or pnpm --filter @swim/transport-udp bench)
 *
 * The workspace packages are imported from their TypeScript sources: this file re-runs itself
 * with `--conditions=@swim/source` when started without it (plain `tsx` would resolve
 * @swim/runtime to its possibly missing or stale dist build).
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

const { run } = await import('./loopback-run.js');
await run(process.argv.slice(2));
