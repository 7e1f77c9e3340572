/** The commands of `swim` (`swim <command> [flags]`); each has its flags, usage and run in commands/. */

export type Command = 'agent' | 'members' | 'monitor' | 'query' | 'tags' | 'join' | 'leave' | 'force-leave' | 'stats' | 'keys' | 'keygen' | 'rtt';
export const COMMANDS: readonly Command[] = ['agent', 'members', 'monitor', 'query', 'tags', 'join', 'leave', 'force-leave', 'stats', 'keys', 'keygen', 'rtt'];

export function isCommand(value: string | undefined): value is Command {
  return (COMMANDS as readonly (string | undefined)[]).includes(value);
}
