import type { MembershipChange } from './events.js';

/**
 * The buffer behind one `changes()` iterator. A slow consumer never makes it grow without bound:
 * it keeps only the latest change per member (insertion-ordered, a newer change moves to the back),
 * so it is bounded by the cluster size and the consumer always sees each member's current state.
 */
export class ChangeStream implements AsyncIterableIterator<MembershipChange> {
  readonly #pending = new Map<string, MembershipChange>();
  #waiter: ((result: IteratorResult<MembershipChange>) => void) | undefined;
  #done = false;

  constructor(
    signal: AbortSignal | undefined,
    private readonly onEnd: (stream: ChangeStream) => void,
  ) {
    if (signal?.aborted) this.end();
    signal?.addEventListener('abort', () => this.end(), { once: true });
  }

  push(change: MembershipChange): void {
    if (this.#done) return;
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
