import { pickRandom, type Rng } from '../support/rng.js';

/** A member as relay selection sees it. */
export interface RelayCandidate {
  /** Its node name. */
  readonly name: string;
  /** Whether it is alive (Serf StatusAlive); only alive members relay. */
  readonly alive: boolean;
}

/** Whom a response is relayed for. */
export interface RelayParams {
  /** The query's relay factor: how many copies to relay (a uint8 on both wires). */
  readonly relayFactor: number;
  /** Our node name: we never relay through ourselves. */
  readonly self: string;
  /** The asker's node name (the query's `sourceName`): relaying through it would add no second path. */
  readonly querier: string;
}

/** The most relays one response gets: the relay factor is a uint8 (serf messages.go messageQuery RelayFactor). */
export const MAX_RELAY_FACTOR = 255;

/**
 * The members to relay an ack or response through, besides sending it straight to the asker
 * (serf query.go relayResponse and kRandomMembers): up to `relayFactor` distinct random members,
 * alive, neither us nor the asker, and passing `eligible` (a wire's own rule: Serf's, a
 * memberlist ProtocolMax of at least 5).
 *
 * As Serf, nothing is relayed when the factor is 0 or when fewer than factor + 1 members are
 * known, counting every member in `members` (pass them all, failed and left ones too, as Serf's
 * Members()). Unlike Serf, the asker is never picked, and the pick is exhaustive: Serf's 3n random
 * draws can miss the one eligible member of a small cluster. A factor that is not an integer in
 * [0, 255] relays nothing.
 */
export function selectRelays<T extends RelayCandidate>(
  rng: Rng,
  members: ArrayLike<T>,
  params: RelayParams,
  eligible: (member: T) => boolean = () => true,
): T[] {
  const { relayFactor, self, querier } = params;
  if (!Number.isInteger(relayFactor) || relayFactor < 1 || relayFactor > MAX_RELAY_FACTOR) return [];
  // serf relayResponse: "we need to have at least relayFactor *other* nodes".
  if (members.length < relayFactor + 1) return [];
  return pickRandom(rng, members, relayFactor, (m) => m.alive && m.name !== self && m.name !== querier && eligible(m));
}
