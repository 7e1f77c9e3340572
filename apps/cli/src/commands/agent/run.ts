/** `swim agent`: start the agent and run it until it stops; SIGINT or SIGTERM make it leave gracefully. */
import { installProcessGuards } from '../../agent/contained-errors.js';
import { startAgent, type RunningAgent } from '../../agent/start.js';
import type { AgentArgs } from './flags.js';

/** Never returns: once the agent has stopped, the process exits with its exit code. A failed start rejects (an AgentError: exit code 1). */
export async function runAgent(args: AgentArgs, out: (text: string) => void): Promise<never> {
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
  agent = await startAgent(args, { out });
  // From here on nothing uncaught ends the agent (before, a failed start exits 1 or 2 as it should).
  installProcessGuards(agent.reportUncaught);
  if (signalled !== undefined) void agent.shutdown(signalled);
  // Exit even if a socket or timer lingers (stdout to a pipe is synchronous on Linux).
  process.exit(await agent.stopped);
}
