/** What a join reports, and the errors it rejects with. */

/** What `Member.join` resolves with, and what a {@link JoinError} carries: which seeds answered and why the others did not. */
export interface JoinResult {
  /** Seed addresses that answered the push-pull (resolved ones, when the transport resolves names). */
  readonly contacted: readonly string[];
  /**
   * Seeds that did not, with why. `nameHolder`: the seed's cluster already has a member of our name
   * at that address (the join is refused with {@link NameConflictError}).
   */
  readonly failed: ReadonlyArray<{
    /** The seed address tried (or the seed as given, when it did not resolve). */
    readonly address: string;
    /** Why: the stream's failure, the seed's error reply, a name that did not resolve, or the name conflict. */
    readonly reason: string;
    /** The address of the member that holds our name in the seed's cluster; set only on a name conflict. */
    readonly nameHolder?: string;
  }>;
}

/** Every seed failed (memberlist Join returns an error when none succeeded); after `attempts` tries with `retry`. */
export class JoinError extends Error {
  constructor(
    /** What the last attempt reported: no seed in `contacted`, each one's failure in `failed`. */
    readonly result: JoinResult,
    /** Attempts made, the first included (1 without `retry`). */
    readonly attempts = 1,
  ) {
    const tries = attempts === 1 ? '' : ` (${attempts} attempts)`;
    super(`could not join through any seed${tries}: ${result.failed.map((f) => `${f.address} (${f.reason})`).join(', ') || 'no seeds given'}`);
    this.name = 'JoinError';
  }
}

/**
 * A seed's cluster already has a member of our name at another address: the join is refused and
 * never retried (names must be unique; memberlist reports the same as a "Conflicting address").
 * Close this member rather than leave: nothing was merged, and a leave under a name another member
 * holds would announce that member's departure.
 */
export class NameConflictError extends JoinError {
  /** Where the cluster has the other member of our name. */
  readonly holder: string;

  constructor(
    /** Our own name, the one the seed's cluster already holds. */
    readonly memberName: string,
    result: JoinResult,
    attempts = 1,
  ) {
    super(result, attempts);
    const conflict = result.failed.find((f) => f.nameHolder !== undefined)!;
    this.holder = conflict.nameHolder!;
    this.message = `name conflict: the cluster reached through ${conflict.address} already has a member named ${JSON.stringify(memberName)} at ${this.holder}; names must be unique, start this member under another name`;
    this.name = 'NameConflictError';
  }
}
