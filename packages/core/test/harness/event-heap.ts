/** A min-heap of timed events; ties run in insertion order so runs are deterministic. */
export class EventHeap<T> {
  readonly #items: Array<{ at: number; seq: number; value: T }> = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  push(at: number, value: T): void {
    const items = this.#items;
    items.push({ at, seq: this.#seq++, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  peekTime(): number | undefined {
    return this.#items[0]?.at;
  }

  pop(): { at: number; value: T } | undefined {
    const items = this.#items;
    const top = items[0];
    if (top === undefined) return undefined;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.#less(l, m)) m = l;
        if (r < items.length && this.#less(r, m)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return { at: top.at, value: top.value };
  }

  #less(a: number, b: number): boolean {
    const x = this.#items[a]!;
    const y = this.#items[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}
