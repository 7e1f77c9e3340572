import type { DecodeErrorCode } from '@swim/core';
import type { MemberlistWireCounters } from './counters.js';

/**
 * Thrown inside the decoder and turned into a DecodeResult (or a counted, skipped part) at its
 * boundary. Not an Error: refusing hostile input must not pay for a stack trace. Details never
 * echo the packet's strings or bytes.
 */
export class DecodeFailure {
  constructor(
    readonly code: DecodeErrorCode,
    readonly detail: string,
    /** The counter a skipped part counts in (malformedParts unless said otherwise). */
    readonly counter: keyof MemberlistWireCounters = 'malformedParts',
  ) {}
}

export function malformed(detail: string): DecodeFailure {
  return new DecodeFailure('malformed', detail);
}

export function invalidField(field: string, problem: string): DecodeFailure {
  return new DecodeFailure('invalid-field', `field '${field}' ${problem}`);
}

/** What `read` returns, or undefined when it throws a {@link DecodeFailure}; anything else thrown is a bug of ours and passes. */
export function unlessMalformed<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (failure) {
    if (failure instanceof DecodeFailure) return undefined;
    throw failure;
  }
}
