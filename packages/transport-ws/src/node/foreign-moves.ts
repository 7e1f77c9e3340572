import type { Message, PushPullEntry } from '@swim/core';

/**
 * A client re-gossips the moves it learnt (members keep the `movedFrom` they applied and repeat it
 * in alive messages and push-pull entries), but a client cannot prove another member's move: the
 * gateway admitted only its own. So `movedFrom` is taken out of whatever a client says about other
 * members, and the rest is relayed: a member that already applied the move sees its current
 * address again; one that missed it sees a plain address conflict and learns the move from the
 * members that can prove nothing either but heard it first-hand (gossip and push-pull among
 * members, not through this gateway). Dropping the packet instead would cost the ping or ack the
 * gossip rides with, for every packet of every client until the moved member's entry is forgotten.
 *
 * Returns the messages without foreign moves and how many were taken out, or undefined when there
 * were none (the bytes go out as they are).
 */
export function stripForeignMoves(messages: readonly Message[], name: string): { readonly messages: readonly Message[]; readonly stripped: number } | undefined {
  let stripped = 0;
  const out = messages.map((message): Message => {
    if (message.type === 'alive') {
      if (message.node === name || message.movedFrom === undefined) return message;
      stripped++;
      return withoutMovedFrom(message);
    }
    if (message.type !== 'push-pull') return message;
    let changed = false;
    const members = message.members.map((entry): PushPullEntry => {
      if (entry.name === name || entry.movedFrom === undefined) return entry;
      stripped++;
      changed = true;
      return withoutMovedFrom(entry);
    });
    return changed ? { ...message, members } : message;
  });
  return stripped === 0 ? undefined : { messages: out, stripped };
}

function withoutMovedFrom<T extends { readonly movedFrom?: string }>(value: T): T {
  const { movedFrom: _dropped, ...rest } = value;
  return rest as T;
}
