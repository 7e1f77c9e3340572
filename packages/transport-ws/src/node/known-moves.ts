import { decodePacket } from '@swim/core';

/**
 * The first two bytes of an alive that names a move on @swim's wire: a msgpack array of 8 elements
 * (0x98: the alive's 5, the protocol range's 2, `movedFrom`) whose first is the alive's type code, 4
 * (docs/compatibility.md). A packet without them carries no move and is not decoded.
 */
const ALIVE_WITH_MOVE = Buffer.from([0x98, 0x04]);

/** Moves remembered at most; beyond it the oldest is forgotten (a flood of forged moves costs its proofs, not memory). */
export const KNOWN_MOVES_LIMIT = 4096;

interface Move {
  readonly address: string;
  readonly movedFrom: string;
  readonly incarnation: number;
}

/**
 * The moves this gateway has seen arrive from the cluster, at its relays, to prove the ones its
 * clients gossip on (foreign-moves.ts). What reaches a relay from another address was sent by a
 * member of the cluster: a UDP member, or a client of another gateway, whose own gateway let it
 * through only if it admitted the move or had proved it the same way. So a move seen here is as
 * proved as anything the cluster says, and a client of ours repeating it adds no claim of its own;
 * one that no relay of ours has seen yet still cannot pass. (On an unencrypted network a stranger
 * can send a relay a forged move, as it can send one to every member directly: encrypt the cluster
 * to keep strangers out.) The relays of a gateway with many tabs hear a move within a gossip round
 * or two of its announcement, far sooner than any single member.
 *
 * Proved only by a gateway's own sessions, a move was taken out of the gossip of every other
 * gateway's tabs, and with three gateways (one killed, 50 tabs) two moved tabs were still held at
 * their old relays by some members 67 s after the kill. Proved by what the gateway's own member
 * holds, the tabs of the other gateways passed a move on only once that one member had it, after
 * most of their copies were spent: over eight runs the moves reached every member 1.3 to 55 s after
 * the kill, the tail being members no copy reached before a push-pull.
 */
export class KnownMoves {
  readonly #moves = new Map<string, Move>();

  /** Take note of the moves in a packet a relay received from the cluster (plaintext). */
  learn(bytes: Uint8Array): void {
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(ALIVE_WITH_MOVE) === -1) return;
    const decoded = decodePacket(bytes);
    if (!decoded.ok) return;
    for (const message of decoded.messages) {
      if (message.type !== 'alive' || message.movedFrom === undefined) continue;
      const held = this.#moves.get(message.node);
      if (held !== undefined && held.incarnation >= message.incarnation) continue;
      // Re-inserted: the Map's order is then the order of the last news, oldest first.
      this.#moves.delete(message.node);
      if (this.#moves.size >= KNOWN_MOVES_LIMIT) this.#moves.delete(this.#moves.keys().next().value!);
      this.#moves.set(message.node, { address: message.address, movedFrom: message.movedFrom, incarnation: message.incarnation });
    }
  }

  /** Whether the last move seen of `name` is the one from `movedFrom` to `address`. */
  holds(name: string, address: string, movedFrom: string): boolean {
    const move = this.#moves.get(name);
    return move !== undefined && move.address === address && move.movedFrom === movedFrom;
  }

  get size(): number {
    return this.#moves.size;
  }
}
