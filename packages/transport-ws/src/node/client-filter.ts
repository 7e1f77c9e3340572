import { decodePacket, encodePacket, type Message } from '@swim/core';
import type { WsGatewayCounters } from './gateway-counters.js';
import { stripForeignMoves, type AdmittedMove } from './foreign-moves.js';
import { guardGossip, mayNeedGuard, type GuardedMember } from './gossip-guard.js';
import { checkClientMessages, type SpoofReason } from './verify.js';

/**
 * Everything a client sends into the cluster passes here: the spoof check (verify.ts, unless
 * `verify` is off) and the gossip guard (gossip-guard.ts). Bytes are decoded once, and only
 * re-encoded when an accusation has to be taken out; with `verify` off they are decoded only
 * when a cheap scan finds something the guard looks for.
 */
export class ClientFilter {
  readonly #verify: boolean;
  readonly #guarded: GuardedMember | undefined;
  readonly #guardedName: Uint8Array | undefined;

  constructor(
    settings: { readonly verify: boolean; readonly seed: string | undefined; readonly seedName: string | undefined },
    private readonly counters: WsGatewayCounters,
    /** Moves this gateway admitted (its sessions); others' moves a client reports are stripped (foreign-moves.ts). */
    private readonly admitted: AdmittedMove = () => false,
  ) {
    this.#verify = settings.verify;
    this.#guarded = settings.seedName === undefined ? undefined : { name: settings.seedName, address: settings.seed };
    this.#guardedName = settings.seedName === undefined ? undefined : new TextEncoder().encode(settings.seedName);
  }

  /**
   * The bytes to relay for the client bound to `name` at relay `address` (maybe rewritten), or
   * `undefined` when they are dropped (counted). `destination`: see {@link guardGossip}.
   * `movedFrom`: where the session was admitted as moving from (see verify.ts 'forged-move').
   */
  inspect(bytes: Uint8Array, name: string, address: string, destination: string | undefined, movedFrom?: string): Uint8Array | undefined {
    let messages: readonly Message[];
    /**
     * The protocol version `bytes` were written in: a rewrite keeps it. Written as version 1 (the
     * codec's default), a push-pull request would be answered in version 1, whose entries carry no
     * ranges and no moves: its sender would see every moved member as a name conflict.
     */
    let version: number | undefined;
    /** Whether `messages` differ from `bytes` (foreign moves taken out): re-encode even if the guard passes. */
    let rewritten = false;
    if (this.#verify) {
      const decoded = decodePacket(bytes);
      if (!decoded.ok) return this.#spoofed('undecodable');
      const reason = checkClientMessages(decoded.messages, name, address, movedFrom);
      if (reason !== undefined) return this.#spoofed(reason);
      messages = decoded.messages;
      version = decoded.version;
      const foreign = stripForeignMoves(messages, name, this.admitted);
      if (foreign !== undefined) {
        this.counters.foreignMovesStripped += foreign.stripped;
        messages = foreign.messages;
        rewritten = true;
      }
    } else {
      if (!mayNeedGuard(bytes, this.#guardedName)) return bytes;
      const decoded = decodePacket(bytes);
      // Not the protocol: every member's decoder drops it too.
      if (!decoded.ok) return bytes;
      messages = decoded.messages;
      version = decoded.version;
    }
    const verdict = guardGossip(messages, this.#guarded, destination);
    switch (verdict.kind) {
      case 'pass':
        if (!rewritten) return bytes;
        // Nothing left once the unproved moves were taken out: nothing to send.
        return messages.length === 0 ? undefined : encodePacket(messages, version).slice();
      case 'max-incarnation':
        this.counters.maxIncarnationDropped++;
        return undefined;
      case 'rewrite':
        this.counters.gatewayAccusationsDropped += verdict.removed;
        // encodePacket returns a view of the codec's shared slab: copy it for the relay to keep.
        return verdict.messages.length === 0 ? undefined : encodePacket(verdict.messages, version).slice();
    }
  }

  #spoofed(reason: SpoofReason): undefined {
    this.counters.spoofDropped++;
    this.counters.spoof[reason]++;
    return undefined;
  }
}
