/**
 * A command's flags read from its arguments, before the command checks their values: each flag
 * given as its spec says, every problem with its own message (a {@link UsageError}).
 */
import { parseArgs as parseFlags } from 'node:util';
import type { Command } from '../commands/names.js';
import { UsageError } from './usage-error.js';

export interface FlagSpec {
  /** `repeatable`: a string flag given any number of times, every value kept in order. */
  readonly type: 'string' | 'boolean' | 'repeatable';
}
/** A command's flags by name (without the dashes). */
export type FlagSpecs = Record<string, FlagSpec>;

/** A command's flags as given, before their values are checked. */
export interface RawFlags {
  readonly strings: Map<string, string>;
  readonly booleans: Set<string>;
  /** `repeatable` flags: every value, in order. */
  readonly lists: Map<string, string[]>;
  readonly positionals: string[];
  readonly help: boolean;
}

type FlagToken = NonNullable<ReturnType<typeof parseFlags>['tokens']>[number];

/**
 * The command's flags through node:util parseArgs. It runs without `strict` and the tokens are
 * checked here instead, in order, so that every problem gets swim's own message (and the command's usage).
 */
export function scan(command: Command, specs: FlagSpecs, args: readonly string[]): RawFlags {
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, spec.type === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: spec.type === 'repeatable' }]),
  );
  const { values, positionals, tokens } = parseFlags({
    args: [...args],
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const empty = { strings: new Map(), booleans: new Set<string>(), lists: new Map(), positionals: [] };
  // `--help` anywhere asks for the usage, whatever else is wrong (`--name --help` too: a value is never a flag).
  if (tokens.some((t) => t.kind === 'option' && (t.name === 'help' || (t.inlineValue === false && (t.value === '--help' || t.value === '-h'))))) {
    return { ...empty, help: true };
  }
  const given = new Set<string>();
  let previous: FlagToken | undefined;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      // `--config a=1 b=2` was the old form of a repeatable flag: say what to write instead.
      // (`swim query` takes positionals anywhere: a name and a payload.)
      if (command !== 'query' && previous?.kind === 'option' && previous.inlineValue === false && specs[previous.name]?.type === 'repeatable') {
        throw new UsageError(`unexpected argument '${token.value}' for swim ${command}: --${previous.name} takes one value, repeat it (--${previous.name} ${token.value})`, command);
      }
    } else if (token.kind === 'option') {
      const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
      if (spec === undefined) {
        const renamed = command === 'agent' && token.name === 'meta' ? ': metadata is --tag key=value now (Serf tags)' : '';
        throw new UsageError(`unknown flag '${token.rawName}' for swim ${command}${renamed}`, command);
      }
      if (spec.type === 'boolean') {
        if (token.value !== undefined) throw new UsageError(`--${token.name} takes no value`, command);
      } else {
        // parseArgs takes the next word as the value even when it is a flag: `--name --bind ...` lacks the name.
        if (token.value === undefined || token.value === '' || (!token.inlineValue && token.value.startsWith('--'))) {
          throw new UsageError(`--${token.name} needs a value`, command);
        }
        if (spec.type === 'string' && given.has(token.name)) throw new UsageError(`--${token.name} given twice`, command);
      }
      given.add(token.name);
    }
    previous = token;
  }
  const raw: RawFlags = { ...empty, positionals, help: false };
  // Every value was checked above: a string (a list of them for a repeatable flag), or true.
  for (const name of Object.keys(specs)) {
    const value: unknown = values[name];
    if (value === true) raw.booleans.add(name);
    else if (typeof value === 'string') raw.strings.set(name, value);
    else if (Array.isArray(value)) raw.lists.set(name, value.map(String));
  }
  return raw;
}

export function noPositionals(command: Command, raw: RawFlags): void {
  if (raw.positionals.length > 0) throw new UsageError(`unexpected argument '${raw.positionals[0]}' for swim ${command}`, command);
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
