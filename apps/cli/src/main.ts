#!/usr/bin/env node
/**
 * `swim <command> [flags]` (`pnpm swim ...` from the repository root). Exit codes: 0 ok, 1 runtime
 * error (port in use, agent unreachable, join failed), 2 bad command line (printed with usage).
 */
import { AgentError } from './agent/start.js';
import { runAgent } from './commands/agent/run.js';
import { forceLeave } from './commands/force-leave.js';
import { join } from './commands/join.js';
import { keygen } from './commands/keygen.js';
import { keys } from './commands/keys.js';
import { leave } from './commands/leave.js';
import { members } from './commands/members.js';
import { monitor } from './commands/monitor.js';
import { parseArgs, USAGE, type ParsedArgs } from './commands/parse.js';
import { query } from './commands/query.js';
import { rtt } from './commands/rtt.js';
import { stats } from './commands/stats.js';
import { tags } from './commands/tags.js';
import { ClientError } from './control-client/request.js';
import { UsageError } from './flags/usage-error.js';
import { packageVersion } from './version.js';

const out = (text: string) => process.stdout.write(`${text}\n`);

async function run(parsed: ParsedArgs): Promise<number> {
  switch (parsed.command) {
    case 'help':
      out(USAGE[parsed.topic ?? 'main']);
      return 0;
    case 'version':
      out(packageVersion());
      return 0;
    case 'members':
      await members(parsed, out);
      return 0;
    case 'stats':
      await stats(parsed, out);
      return 0;
    case 'monitor':
      await monitor(parsed, (chunk) => process.stdout.write(chunk));
      return 0;
    case 'query':
      await query(parsed, out);
      return 0;
    case 'tags':
      await tags(parsed, out);
      return 0;
    case 'join':
      await join(parsed, out);
      return 0;
    case 'keys':
      return keys(parsed, out);
    case 'keygen':
      keygen(out);
      return 0;
    case 'rtt':
      await rtt(parsed, out);
      return 0;
    case 'leave':
      await leave(parsed, out);
      return 0;
    case 'force-leave':
      await forceLeave(parsed);
      return 0;
    case 'agent':
      return runAgent(parsed, out);
  }
}

async function main(): Promise<void> {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`swim: ${error.message}\n\n${USAGE[error.command ?? 'main']}\n`);
    process.exit(2);
  }
  try {
    process.exitCode = await run(parsed);
  } catch (error) {
    if (error instanceof AgentError || error instanceof ClientError) {
      process.stderr.write(`swim: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

await main();
