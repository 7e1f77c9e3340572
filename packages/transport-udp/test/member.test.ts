import { Member } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createUdpTransport } from '../src/index.js';
import { waitFor } from './helpers.js';

const fast = { probeIntervalMs: 200, probeTimeoutMs: 80, gossipIntervalMs: 50, suspicionMult: 2 };

describe('members over UDP + TCP on loopback', () => {
  const members: Member[] = [];
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.close()));
  });

  async function member(name: string): Promise<Member> {
    const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    const m = new Member({ name, transport, config: fast });
    members.push(m);
    return m;
  }

  it('join each other, see each other alive, and detect a closed member as dead', async () => {
    const a = await member('a');
    const b = await member('b');
    const joined = await b.join([a.address]);
    expect(joined.contacted).toEqual([a.address]);
    const alive = (m: Member, name: string) => m.member(name)?.state === 'alive';
    expect(await waitFor(() => alive(a, 'b') && alive(b, 'a'))).toBe(true);
    expect(a.members().map((m) => m.name).sort()).toEqual(['a', 'b']);

    await b.close();
    expect(await waitFor(() => a.member('b')?.state === 'dead', 20_000)).toBe(true);
    expect(a.members().map((m) => m.name)).toEqual(['a']);
  });
});
