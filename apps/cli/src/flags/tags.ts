/** Tags, the member's metadata as Serf encodes them: `swim agent --tag` and the bound every set of tags is held to. */
import { encodeTags } from '@swim/adapter-memberlist';
import { UsageError } from './usage-error.js';

/** memberlist MetaMaxSize, a bound on the encoded tags (Serf refuses to send more); the core checks its own `metaMaxBytes` too. */
export const META_MAX_BYTES = 512;

/** `--tag key=value` pairs into tags; keys must be unique and non-empty, the encoded tags at most {@link META_MAX_BYTES}. */
export function parseTags(pairs: readonly string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--tag '${pair}': expected key=value`, 'agent');
    const key = pair.slice(0, eq);
    if (Object.hasOwn(tags, key)) throw new UsageError(`--tag key '${key}' given twice`, 'agent');
    // defineProperty: a tag named __proto__ is a tag like any other.
    Object.defineProperty(tags, key, { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  const bytes = encodeTags(tags).length;
  if (bytes > META_MAX_BYTES) throw new UsageError(`--tag: the tags are ${bytes} bytes encoded, more than ${META_MAX_BYTES} (memberlist's limit on node metadata)`, 'agent');
  return tags;
}
