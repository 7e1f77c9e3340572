import type { Message } from '@swim/core';

/**
 * Whether `name`'s move from `movedFrom` to `address` is proved here: this gateway admitted it (it
 * holds a session for the name at that relay, opened by a verified move from there), or the move
 * reached one of its relays from the cluster (known-moves.ts).
 */
export type AdmittedMove = (name: string, address: string, movedFrom: string) => boolean;

/**
 * A client re-gossips the moves it learnt (members keep the `movedFrom` they applied and repeat it
 * in alive messages and push-pull entries), and the epidemic needs it: most members of a cluster
 * with browser members are browser members. A move this gateway admitted itself (its own session,
 * its own relay), or one that reached its relays from the cluster (admitted by another gateway),
 * passes as it is. Any other move a client reports about another member cannot be
 * proved here: that alive message or push-pull entry is taken out and the rest is relayed (dropping
 * the packet would cost the ping or ack the gossip rides with). Taking out only its `movedFrom`
 * would turn the move into an address change without one, which every member that has not applied
 * the move yet reports as a name conflict, falsely. Members learn the move elsewhere (the admitting
 * gateway's clients, the gateways' own members, the UDP members, the mover's own push-pull).
 * How a gateway proves the moves it did not admit, and what it cost before: known-moves.ts.
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
  const out: Message[] = [];
  for (const message of messages) {
    if (message.type === 'alive') {
      if (message.node === name || message.movedFrom === undefined || admitted(message.node, message.address, message.movedFrom)) out.push(message);
      else stripped++;
      continue;
    }
    if (message.type !== 'push-pull') {
      out.push(message);
      continue;
    }
    const members = message.members.filter((entry) => entry.name === name || entry.movedFrom === undefined || admitted(entry.name, entry.address, entry.movedFrom));
    stripped += message.members.length - members.length;
    out.push(members.length === message.members.length ? message : { ...message, members });
  }
  return stripped === 0 ? undefined : { messages: out, stripped };
}
