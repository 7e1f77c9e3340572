import type { Rng, SwimConfig } from '@swim/core';
// Imported by path, not as a devDependency: @swim/transport-memory depends on @swim/runtime, and a
// devDependency back would be a cycle that turbo refuses to schedule.
import { constantLatency, MemoryNetwork, realScheduler, uniformLatency, VirtualClock } from '../../transport-memory/src/index.js';
import { Member, realClock, type Clock, type QueryServiceOptions, type Transport } from '../src/index.js';

/** Short timers, so that real-time runs take a fraction of a second. */
export const FAST: Partial<SwimConfig> = {
  probeIntervalMs: 100,
  probeTimeoutMs: 40,
  gossipIntervalMs: 20,
  pushPullIntervalMs: 1000,
  streamTimeoutMs: 200,
  suspicionMult: 2,
  gossipToTheDeadMs: 2000,
};

export const SEED = 2026;

/** What a test changes about one member: its randomness, or its transport. */
export interface MemberExtras {
  readonly rng?: Rng;
  readonly wrap?: (transport: Transport) => Transport;
  readonly meta?: Uint8Array;
  readonly queries?: QueryServiceOptions;
}

/** Members on one memory network, on virtual or real time, with the waits each needs. */
export interface World {
  readonly mode: string;
  readonly network: MemoryNetwork;
  readonly clock: Clock;
  add(name: string, config?: Partial<SwimConfig>, extra?: MemberExtras): Member;
  /** Let time pass until `predicate` holds; fails after `limitMs` of (virtual or real) time. */
  until(predicate: () => boolean, limitMs?: number): Promise<void>;
  /** Let time pass until `promise` settles, then return it. */
  settle<T>(promise: Promise<T>, limitMs?: number): Promise<T>;
  close(): Promise<void>;
}

export function world(mode: 'virtual' | 'real'): World {
  const virtual = mode === 'virtual' ? new VirtualClock() : undefined;
  const clock: Clock = virtual ?? realClock;
  const network = new MemoryNetwork(
    virtual === undefined
      ? { scheduler: realScheduler, seed: SEED, latency: constantLatency(1) }
      : { scheduler: virtual, seed: SEED, latency: uniformLatency(1, 5) },
  );
  const members: Member[] = [];
  let nextSeed = SEED;
  const flush = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const advance = async (ms: number) => {
    if (virtual === undefined) return new Promise<void>((resolve) => setTimeout(resolve, ms));
    virtual.runFor(ms);
    await flush();
  };
  const until = async (predicate: () => boolean, limitMs = 5_000) => {
    const start = clock.now();
    await flush();
    while (!predicate()) {
      if (clock.now() - start > limitMs) throw new Error(`condition not met within ${limitMs} ms (${mode} time, seed ${SEED})`);
      await advance(5);
    }
  };
  return {
    mode,
    network,
    clock,
    add(name, config = {}, extra = {}) {
      const transport = network.transport(name);
      const member = new Member({
        name,
        transport: extra.wrap?.(transport) ?? transport,
        clock,
        ...(extra.rng === undefined ? { seed: nextSeed++ } : { rng: extra.rng }),
        config: { ...FAST, ...config },
        ...(extra.meta === undefined ? {} : { meta: extra.meta }),
        ...(extra.queries === undefined ? {} : { queries: extra.queries }),
      });
      members.push(member);
      return member;
    },
    until,
    async settle(promise, limitMs) {
      let settled = false;
      promise.then(
        () => (settled = true),
        () => (settled = true),
      );
      await until(() => settled, limitMs);
      return promise;
    },
    async close() {
      await Promise.all(members.map((m) => m.close()));
    },
  };
}

