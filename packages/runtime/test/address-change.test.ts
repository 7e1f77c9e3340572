/**
 * A transport whose address changes (Transport.onAddressChange): the Member subscribes when it
 * starts, moves with it (the core's `move` input; docs/design.md, "A member moves"), reports the
 * new address everywhere it reports one, and unsubscribes in close().
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryTransport } from '../../transport-memory/src/index.js';
import type { ContainedError, Transport } from '../src/index.js';
import { world, type World } from './world.js';

/** `transport` (a memory transport) with `onAddressChange` replaced. */
function withAddressChange(transport: Transport, onAddressChange: NonNullable<Transport['onAddressChange']>): Transport {
  return {
    get address() {
      return transport.address;
    },
    maxPacketBytes: transport.maxPacketBytes,
    supportsStreams: transport.supportsStreams,
    listen: (handlers) => transport.listen(handlers),
    sendPacket: (to, bytes) => transport.sendPacket(to, bytes),
    request: (to, bytes, options, done) => transport.request(to, bytes, options, done),
    close: () => transport.close(),
    onAddressChange,
  };
}

/** The memory transport, with its address-change subscriptions counted. */
function counted(transport: Transport): { transport: Transport; listeners: Set<(address: string) => void>; moveTo: (address: string) => void } {
  const memory = transport as MemoryTransport;
  const listeners = new Set<(address: string) => void>();
  const wrapped: Transport = {
    get address() {
      return memory.address;
    },
    maxPacketBytes: memory.maxPacketBytes,
    supportsStreams: memory.supportsStreams,
    listen: (handlers) => memory.listen(handlers),
    sendPacket: (to, bytes) => memory.sendPacket(to, bytes),
    request: (to, bytes, options, done) => memory.request(to, bytes, options, done),
    close: () => memory.close(),
    onAddressChange(listener) {
      listeners.add(listener);
      const stop = memory.onAddressChange(listener);
      return () => {
        listeners.delete(listener);
        stop();
      };
    },
  };
  return { transport: wrapped, listeners, moveTo: (address) => memory.moveTo(address) };
}

describe('a member whose transport changes address', () => {
  let w: World;
  afterEach(async () => {
    await w.close();
  });

  it('subscribes at start, moves with it (new incarnation, new address everywhere), and unsubscribes in close()', async () => {
    w = world('virtual');
    let handle!: ReturnType<typeof counted>;
    const a = w.add('a', {}, { wrap: (t) => (handle = counted(t)).transport });
    const b = w.add('b');
    expect(handle.listeners.size).toBe(1);
    await w.settle(a.join(['b']));
    await w.until(() => b.member('a')?.state === 'alive');
    handle.moveTo('a-elsewhere');
    expect(a.address).toBe('a-elsewhere');
    expect(a.incarnation).toBe(2);
    expect(a.member('a')).toMatchObject({ address: 'a-elsewhere', incarnation: 2 });
    expect(a.snapshot().address).toBe('a-elsewhere');
    await w.until(() => b.member('a')?.address === 'a-elsewhere');
    expect(b.member('a')).toMatchObject({ state: 'alive', incarnation: 2 });
    // Still a working member at its new address: b's probes of it succeed, a hears b's updates.
    const acked = b.counters.probes;
    await w.until(() => b.counters.probes > acked + 5);
    expect(b.member('a')?.state).toBe('alive');
    await a.close();
    expect(handle.listeners.size).toBe(0);
  });

  it('after close(), a change the transport still reports moves nothing', async () => {
    w = world('virtual');
    let listener: ((address: string) => void) | undefined;
    let stops = 0;
    const a = w.add('a', {}, {
      wrap: (t) =>
        withAddressChange(t, (l) => {
          listener = l;
          return () => void stops++;
        }),
    });
    await a.close();
    expect(stops).toBe(1);
    listener!('a-late');
    expect(a.address).toBe('a');
    expect(a.incarnation).toBe(1);
  });

  it('an address the wire cannot carry is an error event (where: move), and the member stays where it was', async () => {
    w = world('virtual');
    let listener: ((address: string) => void) | undefined;
    const a = w.add('a', {}, {
      wrap: (t) =>
        withAddressChange(t, (l) => {
          listener = l;
          return () => {};
        }),
    });
    const errors: ContainedError[] = [];
    a.addEventListener('error', (event) => errors.push((event as CustomEvent<ContainedError>).detail));
    listener!('x'.repeat(300));
    expect(errors.map((e) => e.where)).toEqual(['move']);
    expect(a.address).toBe('a');
    expect(a.incarnation).toBe(1);
  });
});
