import type { SecureTransportCounters } from '@swim/encryption';

/**
 * The encryption counters of every relay the gateway opened, summed: relays come and go with
 * their browser members, and a decryption failure or a refused service request must stay counted
 * after its relay closed.
 */
export class RelayEncryptionTotals {
  readonly #closed: Record<string, number> = {};

  /** Keep what a relay counted; call once, when it closes. */
  retire(counters: Readonly<SecureTransportCounters>): void {
    add(this.#closed, counters);
  }

  /** Closed relays' counts plus the live ones'. */
  sum(live: Iterable<Readonly<SecureTransportCounters>>): SecureTransportCounters {
    const total: Record<string, number> = { ...this.#closed };
    for (const counters of live) add(total, counters);
    return total as unknown as SecureTransportCounters;
  }
}

function add(into: Record<string, number>, counters: Readonly<SecureTransportCounters>): void {
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value === 'number') into[name] = (into[name] ?? 0) + value;
  }
}
