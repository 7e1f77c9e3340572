/** The message of the UsageError that `swim ARGV` is refused with (the test fails when it parses). */
import { expect } from 'vitest';
import { parseArgs } from '../src/commands/parse.js';
import { UsageError } from '../src/flags/usage-error.js';

export function usageError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
}
