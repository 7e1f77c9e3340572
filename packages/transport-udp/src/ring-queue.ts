/** A first-in first-out queue on a ring buffer that doubles when full: O(1) push and shift, no array shifting. */
export class RingQueue<T> {
  #items: Array<T | undefined> = [];
  #head = 0;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(item: T): void {
    const capacity = this.#items.length;
    if (this.#length === capacity) {
      // Grow the ring, unrolled from its head.
      const grown: Array<T | undefined> = new Array(Math.max(16, capacity * 2));
      for (let i = 0; i < this.#length; i++) grown[i] = this.#items[(this.#head + i) % capacity];
      this.#items = grown;
      this.#head = 0;
    }
    this.#items[(this.#head + this.#length) % this.#items.length] = item;
    this.#length++;
  }

  /** The oldest item, left in place; the queue must not be empty. */
  peek(): T {
    return this.#items[this.#head]!;
  }

  /** The oldest item, removed; the queue must not be empty. */
  shift(): T {
    const item = this.#items[this.#head]!;
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#items.length;
    this.#length--;
    return item;
  }
}
