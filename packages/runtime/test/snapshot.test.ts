import { describe, expect, it } from 'vitest';
import { ConfigError, encodePacket, MAX_INCARNATION, MAX_NAME_BYTES, resumeIncarnation, SwimCore } from '@swim/core';
import { MemoryNetwork, uniformLatency, VirtualClock } from '../../transport-memory/src/index.js';
import { Member, parseSnapshot, SnapshotError, snapshotPreload, snapshotSeeds, SNAPSHOT_VERSION, type MemberSnapshot } from '../src/index.js';
import { FAST, SEED } from './world.js';

/** Members on one memory network on virtual time; `run` lets it pass. */
function setup() {
  const clock = new VirtualClock();
  const network = new MemoryNetwork({ scheduler: clock, seed: SEED, latency: uniformLatency(1, 5) });
  let seed = SEED;
  const make = (name: string, extra: { restore?: MemberSnapshot; meta?: Uint8Array; address?: string } = {}) =>
    new Member({
      name,
      transport: network.transport(extra.address ?? `${name}:1`),
      clock,
      seed: seed++,
      config: FAST,
      ...(extra.restore === undefined ? {} : { restore: extra.restore }),
      ...(extra.meta === undefined ? {} : { meta: extra.meta }),
    });
  const run = async (predicate: () => boolean, limitMs = 10_000) => {
    const start = clock.now();
    while (!predicate()) {
      if (clock.now() - start > limitMs) throw new Error(`condition not met within ${limitMs} ms of virtual time (seed ${SEED})`);
      clock.runFor(10);
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
  };
  /** Let virtual time pass until `promise` settles. */
  const settle = async <T>(promise: Promise<T>): Promise<T> => {
    let done = false;
    const tracked = promise.finally(() => {
      done = true;
    });
    await run(() => done);
    return tracked;
  };
  return { clock, network, make, run, settle };
}

/** A cluster of a, b, c (b with meta), all seeing each other alive. */
async function trio() {
  const env = setup();
  const a = env.make('a');
  const b = env.make('b', { meta: new Uint8Array([1, 2, 255]) });
  const c = env.make('c');
  void b.join([a.address]);
  void c.join([a.address]);
  await env.run(() => [a, b, c].every((m) => m.members().length === 3));
  return { ...env, a, b, c };
}

describe('Member.snapshot()', () => {
  it('is plain JSON: own name, address, incarnation, the others alive or suspect with meta, not left', async () => {
    const { a, b, c } = await trio();
    const snapshot = a.snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot).toMatchObject({ version: SNAPSHOT_VERSION, name: 'a', address: 'a:1', incarnation: a.incarnation, left: false });
    const byName = Object.fromEntries(snapshot.members.map((m) => [m.name, m]));
    expect(Object.keys(byName).sort()).toEqual(['b', 'c']);
    expect(byName['b']).toEqual({ name: 'b', address: 'b:1', incarnation: b.incarnation, meta: 'AQL/' });
    expect(byName['c']).toEqual({ name: 'c', address: 'c:1', incarnation: c.incarnation, meta: '' });
    expect(parseSnapshot(JSON.parse(JSON.stringify(snapshot)), { name: 'a' })).toEqual(snapshot);
    expect(snapshotPreload(snapshot).find((m) => m.name === 'b')?.meta).toEqual(new Uint8Array([1, 2, 255]));
    expect(snapshotSeeds(snapshot).sort()).toEqual(['b:1', 'c:1']);
  });

  it('leaves out dead members, and records a graceful leave', async () => {
    const { a, b, c, network, run, settle } = await trio();
    network.crash(c.address);
    await c.close();
    await run(() => a.member('c')?.state === 'dead');
    expect(a.snapshot().members.map((m) => m.name)).toEqual(['b']);
    await settle(a.leave({ timeoutMs: 1000 }));
    const afterLeave = a.snapshot();
    expect(afterLeave.left).toBe(true);
    expect(afterLeave.incarnation).toBe(a.incarnation);
    await Promise.all([a.close(), b.close()]);
    // Still readable once closed: what a process saves on its way out.
    expect(a.snapshot()).toEqual(afterLeave);
  });
});

describe('MemberOptions.restore', () => {
  it('resumes one above the last incarnation, counting refutations and meta updates of the previous life', async () => {
    const { a, b, network, make, run, settle } = await trio();
    await settle(a.updateMeta(new Uint8Array([7]), { timeoutMs: 1000 }));
    // A forged accusation at incarnation 40: a refutes it at 41 (memberlist refute).
    network.transport('x:1').sendPacket(a.address, encodePacket([{ type: 'suspect', incarnation: 40, node: 'a', from: 'x' }]));
    await run(() => a.incarnation === 41);
    expect(a.counters.refutations).toBe(1);
    const snapshot = JSON.parse(JSON.stringify(a.snapshot())) as unknown;
    network.crash(a.address);
    await a.close();
    const restarted = make('a', { restore: parseSnapshot(snapshot, { name: 'a' }) });
    expect(restarted.incarnation).toBe(42);
    // Preloaded: b and c held alive at once, with b's incarnation and meta, without a join.
    expect(restarted.member('b')).toMatchObject({ state: 'alive', incarnation: b.incarnation, meta: new Uint8Array([1, 2, 255]) });
    expect(restarted.member('c')?.state).toBe('alive');
    expect(restarted.members()).toHaveLength(3);
    await restarted.close();
  });

  it('skips a known member at its own new address, and a restored member that was alone has nobody to rejoin', async () => {
    const { a, c, make } = await trio();
    const snapshot = a.snapshot();
    await Promise.all([a.close(), c.close()]);
    // Restarted on the port that c had: c's entry is stale, not a member at our address.
    const restarted = make('a', { restore: snapshot, address: 'c:1' });
    expect(restarted.member('c')).toBeUndefined();
    expect(restarted.member('b')?.state).toBe('alive');
    await restarted.close();
    const lone = make('lone');
    const fromLone = make('lone', { restore: lone.snapshot(), address: 'lone:2' });
    expect(snapshotSeeds(lone.snapshot())).toEqual([]);
    expect(fromLone.incarnation).toBe(2);
    await Promise.all([lone.close(), fromLone.close()]);
  });

  it('starts at 1 again when the previous life ended at the top of the range', () => {
    expect(resumeIncarnation(MAX_INCARNATION)).toBe(1);
    expect(resumeIncarnation(0)).toBe(1);
    expect(resumeIncarnation(41)).toBe(42);
    expect(() => resumeIncarnation(-1)).toThrow(RangeError);
    expect(() => resumeIncarnation(1.5)).toThrow(RangeError);
  });

  it('refuses a snapshot of another member', () => {
    const { make } = setup();
    const snapshot: MemberSnapshot = { version: 1, name: 'b', address: 'b:1', incarnation: 3, left: false, members: [] };
    expect(() => make('a', { restore: snapshot })).toThrow(/the snapshot is of member b, not a/);
    expect(() => parseSnapshot(snapshot, { name: 'a' })).toThrow(SnapshotError);
  });

  it('refuses a malformed snapshot, listing every problem', () => {
    const { make } = setup();
    const bad = {
      version: 2,
      name: '',
      address: 7,
      incarnation: -2,
      left: 'no',
      members: [
        { name: 'b', address: 'b:1', incarnation: 1, meta: '' },
        { name: 'b', address: '', incarnation: -1, meta: 'not base64!' },
        'c',
        { name: 'x'.repeat(300), address: 'x:1', incarnation: 2 ** 32, meta: null },
      ],
    };
    let error: unknown;
    try {
      make('a', { restore: bad as unknown as MemberSnapshot });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).problems).toEqual([
      'version must be 1, got 2',
      'name must be a non-empty string, got ""',
      'address must be a string, got 7',
      `incarnation must be an integer from 0 to ${MAX_INCARNATION}, got -2`,
      'left must be a boolean, got "no"',
      'members[1].name b is listed twice',
      'members[1].address must be a non-empty string, got ""',
      `members[1].incarnation must be an integer from 0 to ${MAX_INCARNATION}, got -1`,
      'members[1].meta must be a base64 string, got "not base64!"',
      'members[2] must be an object',
      `members[3].name must be at most ${MAX_NAME_BYTES} bytes of UTF-8`,
      `members[3].incarnation must be an integer from 0 to ${MAX_INCARNATION}, got 4294967296`,
      'members[3].meta must be a base64 string, got null',
    ]);
    for (const value of [null, 'snapshot', [], 42]) expect(() => parseSnapshot(value), String(value)).toThrow('invalid snapshot: a snapshot must be an object');
  });

  it('refuses restore together with incarnation, and a bad incarnation, before touching the transport', () => {
    const { network, clock } = setup();
    const snapshot: MemberSnapshot = { version: 1, name: 'a', address: 'a:1', incarnation: 3, left: false, members: [] };
    const transport = network.transport('a:1');
    expect(() => new Member({ name: 'a', transport, clock, seed: 1, restore: snapshot, incarnation: 9 })).toThrow(/give incarnation or restore, not both/);
    expect(() => new Member({ name: 'a', transport, clock, seed: 1, incarnation: 0 })).toThrow(ConfigError);
    const member = new Member({ name: 'a', transport, clock, seed: 1, incarnation: 9 });
    expect(member.incarnation).toBe(9);
    void member.close();
  });
});

describe('SwimCoreOptions.incarnation', () => {
  it('starts the core there, and is validated with every other problem', () => {
    expect(new SwimCore({ name: 'a', address: 'a:1', seed: 1, now: 0, incarnation: 77 }).incarnation).toBe(77);
    const core = new SwimCore({ name: 'a', address: 'a:1', seed: 1, now: 0 });
    expect(core.incarnation).toBe(1);
    expect(core.hasLeft).toBe(false);
    core.leave(0);
    expect(core.hasLeft).toBe(true);
    for (const bad of [0, -3, 1.5, MAX_INCARNATION + 1, Number.NaN]) {
      let error: unknown;
      try {
        new SwimCore({ name: '', address: 'a:1', seed: 1, now: 0, incarnation: bad });
      } catch (caught) {
        error = caught;
      }
      expect(error, String(bad)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems, String(bad)).toEqual(['name must be a non-empty string', `incarnation must be an integer from 1 to ${MAX_INCARNATION}, got ${String(bad)}`]);
    }
  });
});
