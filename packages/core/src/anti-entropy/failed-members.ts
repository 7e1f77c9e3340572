import type { CoreContext } from '../context.js';
import { NO_MEMBER } from '../members/member-table.js';
import type { MemberView } from '../members/member.js';

/** A failed member we may still try to reach: its last known address and when it failed. */
export interface FailedMember {
  readonly name: string;
  readonly address: string;
  readonly failedAt: number;
}

/**
 * The members a reconnect may try (Serf serf.go `failedMembers`; memberlist keeps none): every
 * member declared dead (a leave is final and never counted), while it is still in the table and,
 * once the probe pass has reaped it, from this list, until `reconnectTimeoutMs` after its death.
 * Without it two sides of a long partition forget each other for good once the dead are reaped,
 * and only a manual join heals the cluster.
 */
export class FailedMembers {
  readonly #reaped = new Map<string, FailedMember>();

  constructor(private readonly ctx: CoreContext) {}

  /** The probe pass dropped these members from the table; keep the dead ones for reconnects. */
  rememberReaped(records: readonly MemberView[]): void {
    if (this.ctx.config.reconnectIntervalMs === 0) return;
    for (const record of records) {
      if (record.state !== 'dead') continue;
      this.#reaped.set(record.name, { name: record.name, address: record.address, failedAt: record.stateChangedAt });
    }
  }

  /** Failed members still worth a try, oldest expired first and dropped for good. */
  candidates(): FailedMember[] {
    const { ctx } = this;
    const horizon = ctx.now - ctx.config.reconnectTimeoutMs;
    const found: FailedMember[] = [];
    const { table } = ctx;
    if (table.mayHoldDead) {
      let dead = false;
      const members = table.all();
      for (let i = 0; i < members.length; i++) {
        const member = members[i]!;
        if (table.state(member) !== 'dead') continue;
        dead = true;
        const failedAt = table.stateChangedAt(member);
        if (member !== ctx.self.id && failedAt >= horizon) {
          found.push({ name: table.name(member), address: table.address(member), failedAt });
        }
      }
      if (!dead) table.mayHoldDead = false;
    }
    for (const [name, failed] of this.#reaped) {
      // Back in the table (rejoined, or heard of again) or past the reconnect timeout: done.
      if (table.idOf(name) !== NO_MEMBER || failed.failedAt < horizon) this.#reaped.delete(name);
      else found.push(failed);
    }
    return found;
  }
}
