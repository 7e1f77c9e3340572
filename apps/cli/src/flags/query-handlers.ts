/** `swim agent --query-handler NAME=COMMAND`: a shell command that answers the queries named NAME ('*': every other one). */
import { UsageError } from './usage-error.js';

export interface QueryHandlerSpec {
  /** The query name it answers, or '*' for every query without a handler of its own. */
  readonly name: string;
  /** Run with /bin/sh -c, the query's payload on stdin, its stdout the response (as Serf's event handlers). */
  readonly command: string;
}

/** Handlers one agent takes: each is a name in a table, the processes they start are bounded apart. */
export const MAX_QUERY_HANDLERS = 64;

/** `NAME=COMMAND` pairs: the name before the first '=', unique, not Serf's own `_serf_` names; the command not empty. */
export function parseQueryHandlers(pairs: readonly string[]): QueryHandlerSpec[] {
  if (pairs.length > MAX_QUERY_HANDLERS) throw new UsageError(`--query-handler takes at most ${MAX_QUERY_HANDLERS} handlers, got ${pairs.length}`, 'agent');
  const specs: QueryHandlerSpec[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--query-handler '${pair.slice(0, 80)}': expected NAME=COMMAND (NAME may be * for every query)`, 'agent');
    const name = pair.slice(0, eq);
    const command = pair.slice(eq + 1);
    if (command.trim() === '') throw new UsageError(`--query-handler '${name}': the command is empty`, 'agent');
    if (name.startsWith('_serf_')) throw new UsageError(`--query-handler '${name}': queries named _serf_... are Serf's own, answered by the agent itself`, 'agent');
    if (specs.some((s) => s.name === name)) throw new UsageError(`--query-handler '${name}' given twice`, 'agent');
    specs.push({ name, command });
  }
  return specs;
}
