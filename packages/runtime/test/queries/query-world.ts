// Clusters for the query tests: members on one virtual-time memory network, joined and converged.
import type { QueryReply } from '../../src/index.js';
import { swimQueryWire, type Member, type QueryHandle, type QueryServiceOptions } from '../../src/index.js';
import { world, type MemberExtras, type World } from '../world.js';

export const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A test wire: @swim's, with tags read from JSON metadata. */
export const jsonTagsWire = () =>
  swimQueryWire({ tagsOf: (meta) => (meta.length === 0 ? {} : (JSON.parse(text(meta)) as Record<string, string>)) });

export interface ClusterOptions {
  /** Tags of member `name`, carried as JSON metadata and read by {@link jsonTagsWire}. */
  readonly tags?: (name: string) => Record<string, string>;
  readonly queries?: QueryServiceOptions;
  readonly extra?: (name: string) => MemberExtras;
}

/** `count` members m0..m(count-1), joined through m0, each holding all the others. */
export async function cluster(count: number, options: ClusterOptions = {}): Promise<{ w: World; members: Member[] }> {
  const w = world('virtual');
  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const members = names.map((name) =>
    w.add(name, {}, {
      ...options.extra?.(name),
      ...(options.tags === undefined ? {} : { meta: bytes(JSON.stringify(options.tags(name))) }),
      queries: { ...(options.tags === undefined ? {} : { wire: jsonTagsWire() }), ...options.queries },
    }),
  );
  for (const m of members.slice(1)) await w.settle(m.join([members[0]!.address]));
  await w.until(() => members.every((m) => m.members().length === count), 20_000);
  return { w, members };
}

/** Every reply of `handle`, iterated until it ends. */
export async function collect(w: World, handle: QueryHandle): Promise<QueryReply[]> {
  const replies: QueryReply[] = [];
  const done = (async () => {
    for await (const reply of handle) replies.push(reply);
  })();
  await w.settle(done, 120_000);
  return replies;
}

/** Names of the members that acked / responded, sorted. */
export function from(replies: readonly QueryReply[], kind: QueryReply['kind']): string[] {
  return replies
    .filter((r) => r.kind === kind)
    .map((r) => r.from)
    .sort();
}
