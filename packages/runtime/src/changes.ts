import type { MemberEventKind } from '@swim/core';
import type { MembershipChange } from './events.js';

/** Every kind of membership change, in the order a member's life goes through them. */
export const MEMBER_EVENT_KINDS = ['join', 'update', 'suspect', 'alive', 'dead', 'left'] as const satisfies readonly MemberEventKind[];
// Fails to compile when the core gains a kind this list lacks.
const everyKind: Record<MemberEventKind, true> = { join: true, update: true, suspect: true, alive: true, dead: true, left: true };

/** The kinds `changes({ kinds })` keeps; every unknown one is named in the error. */
export function checkKinds(kinds: readonly unknown[]): ReadonlySet<MemberEventKind> {
  if (kinds.length === 0) throw new RangeError(`kinds is empty: name at least one of ${MEMBER_EVENT_KINDS.join(', ')}, or leave it out for every kind`);
  const unknown = kinds.filter((kind) => typeof kind !== 'string' || !Object.hasOwn(everyKind, kind));
  if (unknown.length > 0) {
    throw new RangeError(`unknown event kind${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (expected ${MEMBER_EVENT_KINDS.join(', ')})`);
  }
  return new Set(kinds as readonly MemberEventKind[]);
}

/**
 * The buffer behind one `changes()` iterator. A slow consumer never makes it grow without bound:
 * it keeps only the latest change per member (insertion-ordered, a newer change moves to the back),
 * so it is bounded by the cluster size and the consumer always sees each member's current state.
 * Given `kinds`, changes of other kinds are dropped before they are buffered.
 */
export class ChangeStream implements AsyncIterableIterator<MembershipChange> {
  readonly #pending = new Map<string, MembershipChange>();
  #waiter: ((result: IteratorResult<MembershipChange>) => void) | undefined;
  #done = false;

  constructor(
    signal: AbortSignal | undefined,
    private readonly onEnd: (stream: ChangeStream) => void,
    private readonly kinds?: ReadonlySet<MemberEventKind>,
  ) {
    if (signal?.aborted) this.end();
    signal?.addEventListener('abort', () => this.end(), { once: true });
  }

  push(change: MembershipChange): void {
    if (this.#done || (this.kinds !== undefined && !this.kinds.has(change.event))) return;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter({ value: change, done: false });
      return;
    }
    const name = change.member.name;
    this.#pending.delete(name);
    this.#pending.set(name, change);
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#pending.clear();
    this.onEnd(this);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<MembershipChange>> {
    for (const [name, change] of this.#pending) {
      this.#pending.delete(name);
      return Promise.resolve({ value: change, done: false });
    }
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  return(): Promise<IteratorResult<MembershipChange>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<MembershipChange> {
    return this;
  }
}
