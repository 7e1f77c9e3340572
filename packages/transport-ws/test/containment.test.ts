import { afterEach, describe, expect, it } from 'vitest';
import { pool, waitFor } from './helpers.js';
import { rawConnect, rawJoin } from './raw.js';

describe('gateway containment: an exception in a callback is counted and reported, never thrown into the event loop', () => {
  const made = pool();
  afterEach(() => made.closeAll());

  it('a throwing clientAddress refuses that upgrade (500) and the gateway serves the next one', async () => {
    const errors: Array<[string, unknown]> = [];
    const gateway = await made.gateway({
      clientAddress: (request) => {
        if (request.headers['x-boom'] !== undefined) throw new Error('boom');
        return '10.0.0.1';
      },
      onError: (error, context) => errors.push([context, error]),
    });
    await expect(rawConnect(gateway.url, { 'x-boom': '1' })).rejects.toThrow(/500/);
    expect(gateway.counters.internalErrors).toBe(1);
    expect(errors).toEqual([['clientAddress', new Error('boom')]]);
    const fine = await rawJoin(gateway.url, { name: 'fine' });
    expect(fine.welcome.address).toMatch(/^127\.0\.0\.1:\d+$/);
    fine.ws.close(1000);
  });

  it('a clock that throws closes the connection it was reading for; a throwing onError changes nothing', async () => {
    let broken = false;
    const gateway = await made.gateway({
      now: () => {
        if (broken) throw new Error('clock');
        return 0;
      },
      onError: () => {
        throw new Error('onError too');
      },
    });
    const client = await rawJoin(gateway.url, { name: 'c' });
    broken = true;
    client.ws.send(new Uint8Array([0x01, 0]));
    expect((await client.closed).code).toBe(1008);
    expect(await waitFor(() => gateway.counters.internalErrors === 1)).toBe(true);
    broken = false;
    const next = await rawJoin(gateway.url, { name: 'd' });
    next.ws.close(1000);
  });
});
