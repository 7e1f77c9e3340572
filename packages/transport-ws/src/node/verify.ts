import { decodePacket, type Message } from '@swim/core';

/** Why the gateway dropped bytes a client sent (see {@link checkClientBytes}). */
export type SpoofReason =
  /** Not a packet of the protocol (decodePacket failed). */
  | 'undecodable'
  /** A ping whose sourceName / sourceAddress is not the connection's member / relay. */
  | 'ping-source'
  /** A ping-req whose sourceName / sourceAddress is not the connection's member / relay. */
  | 'ping-req-source'
  /** A user message whose `from` is not the connection's member. */
  | 'user-from'
  /** An alive about the connection's member at an address other than its relay. */
  | 'alive-address'
  /** An alive for another name at the relay's address. */
  | 'alive-claim'
  /** A push-pull entry about the connection's member, alive or suspect, at an address other than its relay. */
  | 'push-pull-address'
  /** A push-pull entry for another name, alive or suspect, at the relay's address. */
  | 'push-pull-claim'
  /**
   * An alive (or a push-pull entry) about the connection's member announcing a move (`movedFrom`)
   * that this gateway did not admit: only a session opened by a verified move (hello with
   * `credential` and `from`) may announce the move from `from`.
   */
  | 'forged-move';

/** Every {@link SpoofReason}, in the order `WsGatewayCounters.spoof` lists them. */
export const SPOOF_REASONS: readonly SpoofReason[] = [
  'undecodable',
  'ping-source',
  'ping-req-source',
  'user-from',
  'alive-address',
  'alive-claim',
  'push-pull-address',
  'push-pull-claim',
  'forged-move',
];

/**
 * Whether bytes a client sends (a packet, a stream request or a stream reply) only speak for the
 * member bound to the connection: `undefined` when they may go out, else the reason to drop them.
 * Gossip about other members (suspect, dead, alive at their own addresses, broadcasts) passes.
 */
export function checkClientBytes(bytes: Uint8Array, name: string, address: string, movedFrom?: string): SpoofReason | undefined {
  const decoded = decodePacket(bytes);
  if (!decoded.ok) return 'undecodable';
  return checkClientMessages(decoded.messages, name, address, movedFrom);
}

/**
 * {@link checkClientBytes} for messages already decoded. `movedFrom`: the address the session was
 * admitted as a move from (undefined for a session that joined afresh).
 */
export function checkClientMessages(messages: readonly Message[], name: string, address: string, movedFrom?: string): SpoofReason | undefined {
  for (const message of messages) {
    const reason = checkMessage(message, name, address, movedFrom);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function checkMessage(message: Message, name: string, address: string, movedFrom: string | undefined): SpoofReason | undefined {
  switch (message.type) {
    case 'ping':
      return message.sourceName === name && message.sourceAddress === address ? undefined : 'ping-source';
    case 'ping-req':
      return message.sourceName === name && message.sourceAddress === address ? undefined : 'ping-req-source';
    case 'user':
      return message.from === name ? undefined : 'user-from';
    case 'alive':
      if (message.node === name && message.address !== address) return 'alive-address';
      if (message.node !== name && message.address === address) return 'alive-claim';
      if (message.node === name && !admittedMove(message.movedFrom, movedFrom)) return 'forged-move';
      return undefined;
    case 'push-pull':
      for (const entry of message.members) {
        // Dead and left entries are history: a relay port can be reused after its member is gone.
        if (entry.state !== 'alive' && entry.state !== 'suspect') continue;
        if (entry.name === name && entry.address !== address) return 'push-pull-address';
        if (entry.name !== name && entry.address === address) return 'push-pull-claim';
        if (entry.name === name && !admittedMove(entry.movedFrom, movedFrom)) return 'forged-move';
      }
      return undefined;
    default:
      return undefined;
  }
}

/** A member's own alive may say it moved only from where its session was admitted as moving from. */
function admittedMove(announced: string | undefined, admitted: string | undefined): boolean {
  return announced === undefined || announced === admitted;
}
