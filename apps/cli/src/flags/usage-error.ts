/** What every flag check throws: a bad command line. */
import type { Command } from '../commands/names.js';

/** A bad command line: exit code 2, with the usage of `command`. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: Command | undefined,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
