import type { Message, PushPullEntry } from '@swim/core';

/** The largest incarnation the wire carries (a msgpack uint32). */
export const MAX_INCARNATION = 0xffff_ffff;

/** The gateway process's own member, which clients must not be able to accuse. */
export interface GuardedMember {
  readonly name: string;
  /** Its address (the `seed`), when known: where accusations may still go, to be refuted. */
  readonly address: string | undefined;
}

export type GossipVerdict =
  | { readonly kind: 'pass' }
  /** Drop it whole: some message or entry is at the maximum incarnation. */
  | { readonly kind: 'max-incarnation' }
  /** Send `messages` instead (none left: drop it); `removed` accusations were taken out. */
  | { readonly kind: 'rewrite'; readonly messages: readonly Message[]; readonly removed: number };

/**
 * What the gateway lets a client say in gossip, beyond the spoof check (verify.ts):
 *
 * - Nothing at incarnation 2^32-1. A member accused at the wire's maximum refutes at 2^32, which it
 *   cannot encode (memberlist's refute wraps to 0 instead, which its peers ignore); a legitimate
 *   member never gets there (one refutation per accusation), so such bytes are dropped whole.
 * - No accusation of the gateway's member: suspect and dead messages about it, and push-pull
 *   entries that put it anywhere but alive at its address, are taken out and the rest is relayed
 *   (piggybacked gossip must not cost the ping or ack it rides with). They still reach the
 *   gateway's member itself, addressed to it, so that a client that suspects it honestly gets the
 *   refutation (SWIM §4.2: only the suspected member can refute; Lifeguard's buddy system, §IV.C,
 *   and direct refutation send the accusation to the suspect itself); no other member hears them.
 *
 * `destination` is where the bytes go; `undefined` for a stream reply (its requester is unknown).
 */
export function guardGossip(messages: readonly Message[], guarded: GuardedMember | undefined, destination: string | undefined): GossipVerdict {
  for (const message of messages) if (atMaxIncarnation(message)) return { kind: 'max-incarnation' };
  if (guarded === undefined || (guarded.address !== undefined && destination === guarded.address)) return { kind: 'pass' };
  let removed = 0;
  const kept: Message[] = [];
  for (const message of messages) {
    if (message.type === 'push-pull') {
      const members = message.members.filter((entry) => !entryAccuses(entry, guarded));
      removed += message.members.length - members.length;
      kept.push(members.length === message.members.length ? message : { ...message, members });
    } else if (accuses(message, guarded)) {
      removed++;
    } else {
      kept.push(message);
    }
  }
  return removed === 0 ? { kind: 'pass' } : { kind: 'rewrite', messages: kept, removed };
}

function atMaxIncarnation(message: Message): boolean {
  switch (message.type) {
    case 'alive':
    case 'suspect':
    case 'dead':
      return message.incarnation >= MAX_INCARNATION;
    case 'push-pull':
      return message.members.some((entry) => entry.incarnation >= MAX_INCARNATION);
    default:
      return false;
  }
}

function accuses(message: Message, guarded: GuardedMember): boolean {
  switch (message.type) {
    case 'suspect':
    case 'dead':
      return message.node === guarded.name;
    case 'alive':
      // Its name at another address: a takeover of the gateway's member, refuted only by flapping.
      return message.node === guarded.name && guarded.address !== undefined && message.address !== guarded.address;
    default:
      return false;
  }
}

function entryAccuses(entry: PushPullEntry, guarded: GuardedMember): boolean {
  if (entry.name !== guarded.name) return false;
  return entry.state !== 'alive' || (guarded.address !== undefined && entry.address !== guarded.address);
}

const MAX_INCARNATION_BYTES = new Uint8Array([0xff, 0xff, 0xff, 0xff]);

/**
 * Whether bytes could hold what {@link guardGossip} looks for, without decoding them: the four
 * 0xff bytes that end 2^32-1 in any msgpack integer encoding, or the guarded member's name. Lets a
 * gateway that does not verify skip the decoder for almost every packet.
 */
export function mayNeedGuard(bytes: Uint8Array, guardedName: Uint8Array | undefined): boolean {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.indexOf(MAX_INCARNATION_BYTES) !== -1 || (guardedName !== undefined && view.indexOf(guardedName) !== -1);
}
