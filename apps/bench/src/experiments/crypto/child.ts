/**
 * A child process of `pnpm bench crypto`: hosts one cluster (plain or encrypted), measures it and
 * sends the {@link ClusterRun} to the parent over IPC. Arguments: the mode, then the parameters as JSON.
 */
import { measureMembers } from './members.js';
import type { CryptoParams, Mode } from './result.js';

const [mode, json] = process.argv.slice(2) as [Mode, string];
const params = JSON.parse(json) as CryptoParams;
try {
  const run = await measureMembers(mode, params, (line) => process.stderr.write(`crypto: ${line}\n`));
  process.send!({ ok: true, run }, () => process.exit(0));
} catch (error) {
  process.send!({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () => process.exit(1));
}
