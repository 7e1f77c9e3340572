import type { Message, PushPullEntry } from '@swim/core';

/**
 * Whether this gateway admitted `name`'s move from `movedFrom` to `address`: it holds a session for
 * the name at that relay, opened by a verified move from there.
 */
export type AdmittedMove = (name: string, address: string, movedFrom: string) => boolean;

/**
 * A client re-gossips the moves it learnt (members keep the `movedFrom` they applied and repeat it
 * in alive messages and push-pull entries), and the epidemic needs it: most members of a cluster
 * with browser members are browser members. A move this gateway admitted itself (its own session,
 * its own relay) passes as it is. Any other move a client reports about another member cannot be
 * proved here, so its `movedFrom` is taken out and the rest is relayed: a member that applied the
 * move sees its current address again; one that missed it sees a plain address conflict and learns
 * the move from the gateway that admitted it (through that gateway's clients) or from the UDP
 * members. Dropping the packet instead would cost the ping or ack the gossip rides with.
 *
 * Returns the messages without unproved moves and how many were taken out, or undefined when there
 * were none (the bytes go out as they are).
 */
export function stripForeignMoves(
  messages: readonly Message[],
  name: string,
  admitted: AdmittedMove,
): { readonly messages: readonly Message[]; readonly stripped: number } | undefined {
  let stripped = 0;
  const out = messages.map((message): Message => {
    if (message.type === 'alive') {
      if (message.node === name || message.movedFrom === undefined || admitted(message.node, message.address, message.movedFrom)) return message;
      stripped++;
      return withoutMovedFrom(message);
    }
    if (message.type !== 'push-pull') return message;
    let changed = false;
    const members = message.members.map((entry): PushPullEntry => {
      if (entry.name === name || entry.movedFrom === undefined || admitted(entry.name, entry.address, entry.movedFrom)) return entry;
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
