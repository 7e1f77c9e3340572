// A join through an encrypting transport takes host names as the transport under it does.
import { describe, expect, it } from 'vitest';
import type { Transport } from '@swim/runtime';
import { secureTransport } from '../src/index.js';
import { FakeTransport } from './helpers.js';

describe('resolve', () => {
  it("is the inner transport's", async () => {
    const inner = new FakeTransport() as FakeTransport & Transport;
    const asked: string[] = [];
    inner.resolve = async (address) => (asked.push(address), ['10.0.0.4:7946', '[fd00::4]:7946']);
    const secure = secureTransport(inner, { label: 'prod' });
    expect(await secure.resolve!('seeds.example:7946')).toEqual(['10.0.0.4:7946', '[fd00::4]:7946']);
    expect(asked).toEqual(['seeds.example:7946']);
  });

  it('gives the address itself when the inner transport resolves nothing', async () => {
    const secure = secureTransport(new FakeTransport(), { label: 'prod' });
    expect(await secure.resolve!('b:1')).toEqual(['b:1']);
  });
});
