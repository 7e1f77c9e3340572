import type { CoreContext } from '../context.js';
import { NO_MEMBER } from '../members/member-table.js';
import type { MemberView } from '../members/member.js';

/** A failed member we may still try to reach: its last known address and when it failed. */
export interface FailedMember {
  readonly name: string;
  readonly address: string;
  readonly failedAt: number;
  /** The incarnation it was declared dead at: a leave at it or above ends the reconnects. */
  readonly incarnation: number;
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
      this.#reaped.set(record.name, { name: record.name, address: record.address, failedAt: record.stateChangedAt, incarnation: record.incarnation });
    }
  }

  /** True while `name` is a reaped failed member still within the reconnect timeout. */
  isReaped(name: string): boolean {
    const failed = this.#reaped.get(name);
    return failed !== undefined && failed.failedAt >= this.ctx.now - this.ctx.config.reconnectTimeoutMs;
  }

  /**
   * A reaped failed member left (a force-leave, ours or gossiped): no more reconnects to it (Serf
   * handleNodeLeaveIntent drops it from failedMembers). Returns what was held, undefined if none,
   * or if the leave is about an older life than the death we hold.
   */
  forgetLeft(name: string, incarnation = Infinity): FailedMember | undefined {
    const failed = this.#reaped.get(name);
    if (failed === undefined || incarnation < failed.incarnation) return undefined;
    this.#reaped.delete(name);
    return failed;
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
          found.push({ name: table.name(member), address: table.address(member), failedAt, incarnation: table.incarnation(member) });
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
