import { describe, expect, it } from 'vitest';
import { TypedEventTarget } from '../src/index.js';

interface Events {
  probe: number;
  join: string;
}

/** Counts the events it actually builds and dispatches. */
class Counting extends TypedEventTarget<Events> {
  dispatched: string[] = [];

  fire<K extends keyof Events>(type: K, detail: Events[K]): void {
    this.dispatch(type, detail);
  }

  override dispatchEvent(event: Event): boolean {
    this.dispatched.push(event.type);
    return super.dispatchEvent(event);
  }
}

describe('TypedEventTarget dispatches only what someone listens to', () => {
  for (const withErrorReport of [false, true]) {
    const make = () => new Counting(withErrorReport ? () => undefined : undefined);

    it(`builds no event for a type never listened to (error report ${withErrorReport ? 'on' : 'off'})`, () => {
      const target = make();
      target.fire('probe', 1);
      target.fire('join', 'a');
      expect(target.dispatched).toEqual([]);
    });

    it(`delivers every event from the moment a listener is added (error report ${withErrorReport ? 'on' : 'off'})`, () => {
      const target = make();
      const seen: number[] = [];
      target.fire('probe', 1);
      target.on('probe', (n) => seen.push(n));
      target.fire('probe', 2);
      target.fire('join', 'x');
      target.fire('probe', 3);
      expect(seen).toEqual([2, 3]);
      expect(target.dispatched).toEqual(['probe', 'probe']);
    });

    it(`a once listener, an aborted one and a removed one leave the type dispatched, and later listeners hear it (error report ${withErrorReport ? 'on' : 'off'})`, () => {
      const target = make();
      const once: string[] = [];
      target.on('join', (name) => once.push(name), { once: true });
      const controller = new AbortController();
      target.on('probe', () => undefined, { signal: controller.signal });
      controller.abort();
      const off = target.on('probe', () => undefined);
      off();
      target.fire('join', 'a');
      target.fire('join', 'b');
      expect(once).toEqual(['a']);
      const later: number[] = [];
      target.on('probe', (n) => later.push(n));
      target.fire('probe', 7);
      expect(later).toEqual([7]);
    });

    it(`a listener added with addEventListener counts too (error report ${withErrorReport ? 'on' : 'off'})`, () => {
      const target = make();
      const seen: unknown[] = [];
      target.addEventListener('join', (event) => seen.push((event as CustomEvent<string>).detail));
      target.fire('join', 'z');
      expect(seen).toEqual(['z']);
    });
  }
});
