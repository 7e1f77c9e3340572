#!/usr/bin/env node
/**
 * `swim <command> [flags]` (`pnpm swim ...` from the repository root). Exit codes: 0 ok, 1 runtime
 * error (port in use, agent unreachable, join failed), 2 bad command line (printed with usage).
 */
import { parseArgs, USAGE, UsageError, type ParsedArgs } from './commands/parse.js';
import { AgentError, startAgent, type RunningAgent } from './agent/start.js';
import { generateKey } from '@swim/encryption';
import { ClientError, join, keys, leave, members, stats, tags } from './control-client/request.js';
import { monitor } from './control-client/monitor-stream.js';
import { installProcessGuards } from './agent/contained-errors.js';
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
    case 'tags':
      await tags(parsed, out);
      return 0;
    case 'join':
      await join(parsed, out);
      return 0;
    case 'keys':
      return keys(parsed, out);
    case 'keygen':
      out(generateKey());
      return 0;
    case 'leave':
      await leave(parsed, out);
      return 0;
    case 'agent': {
      // Signals are caught before the agent logs that it listens: a Ctrl-C right after that line
      // (or during the start) still ends in a graceful leave, not in Node's default exit.
      let agent: RunningAgent | undefined;
      let signalled: NodeJS.Signals | undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        // A second signal while leaving stops at once.
        process.once(signal, () => process.exit(1));
        if (agent === undefined) signalled = signal;
        else void agent.shutdown(signal);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      agent = await startAgent(parsed, { out });
      // From here on nothing uncaught ends the agent (before, a failed start exits 1 or 2 as it should).
      installProcessGuards(agent.reportUncaught);
      if (signalled !== undefined) void agent.shutdown(signalled);
      // Exit even if a socket or timer lingers (stdout to a pipe is synchronous on Linux).
      process.exit(await agent.stopped);
    }
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
