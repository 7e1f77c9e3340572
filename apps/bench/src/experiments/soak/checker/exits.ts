import { s } from './pairs.js';
import type { InvariantResult, Timeline } from './types.js';

/** Invariant 4 (agents): no process exits the nemesis did not cause, no contained exceptions. Not applicable when the timeline has neither list. */
export function checkExits(timeline: Timeline): InvariantResult {
  const exits = timeline.exits;
  const exceptions = timeline.exceptions;
  const unexpected = (exits ?? []).filter((e) => !e.expected);
  const firstExit = unexpected[0];
  const firstException = exceptions?.[0];
  let first: string | null = null;
  if (firstExit !== undefined && (firstException === undefined || firstExit.at <= firstException.at)) {
    first = `${firstExit.member} exited unexpectedly at ${s(firstExit.at)} (code ${firstExit.code ?? '—'}, signal ${firstExit.signal ?? '—'})`;
  } else if (firstException !== undefined) first = `${firstException.member} contained an exception at ${s(firstException.at)}: ${firstException.message}`;
  return {
    id: 4,
    name: 'no unexpected exits, no contained exceptions',
    bound: '0',
    applicable: exits !== undefined || exceptions !== undefined,
    checked: (exits?.length ?? 0) + (exceptions?.length ?? 0),
    violations: unexpected.length + (exceptions?.length ?? 0),
    firstViolation: first,
  };
}
