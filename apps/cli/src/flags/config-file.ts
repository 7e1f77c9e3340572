/**
 * `swim agent --config-file FILE.json`: a JSON object whose keys are the agent's flags, spelled as
 * on the command line (`"rpc-token"`, `"leave-timeout"`). The keys come from the flag table itself,
 * so a flag added to `swim agent` is a key of the file too.
 */

/** Reads a `--config-file` (the tests pass their own). */
export type ReadText = (path: string) => string;

/** How a flag takes values (the flag table's own spec). */
export interface FileFlagSpec {
  readonly type: 'string' | 'boolean' | 'repeatable';
}

/** The file's values in the form the command line's flags take. */
export interface FileFlags {
  readonly strings: Map<string, string>;
  readonly booleans: Set<string>;
  readonly lists: Map<string, string[]>;
}

type Scalar = string | number | boolean;

/**
 * The flags a config file sets, or every problem with it. Values: a JSON string, number or boolean
 * for a flag taking one value (`"bind": "127.0.0.1:7946"`, `"leave-timeout": 5000`); an array of
 * them for a repeatable flag (`"join": ["10.0.0.1:7946"]`), or an object for a repeatable
 * `key=value` flag (`"tag": {"role": "web"}` is `--tag role=web`); true or false for a switch.
 */
export function fileFlags(text: string, specs: Readonly<Record<string, FileFlagSpec>>): FileFlags | { readonly problems: readonly string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problems: [`not valid JSON (${(error as Error).message})`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problems: ['expected a JSON object whose keys are flags, e.g. {"name": "n1", "bind": "127.0.0.1:7946"}'] };
  }
  const flags: FileFlags = { strings: new Map(), booleans: new Set(), lists: new Map() };
  const problems: string[] = [];
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (spec === undefined) {
      unknown.push(key);
      continue;
    }
    const problem = setFlag(flags, key, spec, value);
    if (problem !== undefined) problems.push(`"${key}" ${problem}`);
  }
  if (unknown.length > 0) {
    const shown = unknown.map((key) => `"${key.slice(0, 60)}"`).join(', ');
    problems.unshift(`unknown key${unknown.length === 1 ? '' : 's'} ${shown} (valid keys: ${Object.keys(specs).join(', ')})`);
  }
  return problems.length > 0 ? { problems } : flags;
}

/** Set one flag from its JSON value; what is wrong with the value otherwise. */
function setFlag(flags: FileFlags, key: string, spec: FileFlagSpec, value: unknown): string | undefined {
  switch (spec.type) {
    case 'boolean':
      if (typeof value !== 'boolean') return `must be true or false, got ${describe(value)}`;
      if (value) flags.booleans.add(key);
      return undefined;
    case 'string': {
      if (!isScalar(value)) return `must be a string, number or boolean, got ${describe(value)}`;
      if (value === '') return 'is empty';
      flags.strings.set(key, String(value));
      return undefined;
    }
    case 'repeatable': {
      let values: unknown[];
      if (Array.isArray(value)) values = value;
      else if (isScalar(value)) values = [value];
      else if (typeof value === 'object' && value !== null) {
        const entries = Object.entries(value);
        const bad = entries.find(([, v]) => !isScalar(v));
        if (bad !== undefined) return `maps "${bad[0]}" to ${describe(bad[1])}: values must be strings, numbers or booleans`;
        values = entries.map(([k, v]) => `${k}=${String(v)}`);
      } else return `must be an array (one item per --${key}), got ${describe(value)}`;
      const badItem = values.findIndex((item) => !isScalar(item) || item === '');
      if (badItem >= 0) return `item ${badItem} must be a non-empty string, number or boolean, got ${describe(values[badItem])}`;
      flags.lists.set(key, values.map(String));
      return undefined;
    }
  }
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  return JSON.stringify(value) ?? typeof value;
}
