import { bytesEqual } from '../support/bytes.js';

/**
 * A member's name, address, meta and the address it moved from as one object. Every table in the process that holds the same
 * three holds the same object: one reference per member entry instead of three (with n simulated
 * members each holding n entries, 16 bytes per entry), and equal metas decoded by different
 * members are kept once.
 */
export interface Identity {
  readonly name: string;
  readonly address: string;
  readonly meta: Uint8Array;
  /** The address it announced it moved away from (AliveMessage.movedFrom), kept to gossip it on; undefined if none. */
  readonly movedFrom: string | undefined;
  /**
   * Unique to this object in the process (never reused): what a table's content fingerprint
   * (MemberTable.contentPrint) mixes, so equal prints mean the same identity objects.
   */
  readonly serial: number;
}

/** Serial of the next identity made; 0 is the free slot's (member-table.ts NOBODY). */
let nextSerial = 1;

/** Identities made so far, the latest per name. */
const IDENTITIES = new Map<string, Identity>();
/**
 * Names remembered at most. A full cache is cleared (as memberKey's), so a flood of forged names
 * costs at most this many entries; tables keep the identities they hold, the cache only shares them.
 */
export const MAX_SHARED_IDENTITIES = 65_536;

/** The shared identity for these four, made if the cache holds none equal. */
export function identityOf(name: string, address: string, meta: Uint8Array, movedFrom?: string): Identity {
  const known = IDENTITIES.get(name);
  if (known !== undefined && known.address === address && known.movedFrom === movedFrom && (known.meta === meta || bytesEqual(known.meta, meta))) return known;
  if (IDENTITIES.size >= MAX_SHARED_IDENTITIES) IDENTITIES.clear();
  const made: Identity = { name, address, meta, movedFrom, serial: nextSerial++ };
  IDENTITIES.set(name, made);
  return made;
}

/** Names the cache holds now (for the test of its bound). */
export function sharedIdentities(): number {
  return IDENTITIES.size;
}
