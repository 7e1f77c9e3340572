/** Members on an in-memory network in virtual time, joined and converged: for tests that read live members (the metrics adapters' exporters). */
import { Member } from '@swim/runtime';
import { MemoryNetwork, uniformLatency, VirtualClock } from '@swim/transport-memory';

const FAST = { probeIntervalMs: 100, probeTimeoutMs: 40, gossipIntervalMs: 20, pushPullIntervalMs: 1000, streamTimeoutMs: 200, suspicionMult: 2 };

export interface VirtualCluster {
  readonly members: Member[];
  readonly network: MemoryNetwork;
  /** Let virtual time pass until `predicate` holds (promises settle between steps); fails after `limitMs`. */
  until(predicate: () => boolean, limitMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function virtualCluster(names: readonly string[], seed = 7): Promise<VirtualCluster> {
  const clock = new VirtualClock();
  const network = new MemoryNetwork({ scheduler: clock, seed, latency: uniformLatency(1, 5) });
  const members = names.map((name, i) => new Member({ name, transport: network.transport(name), clock, seed: seed + i, config: FAST }));
  const flush = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const until = async (predicate: () => boolean, limitMs = 10_000) => {
    const start = clock.now();
    await flush();
    while (!predicate()) {
      if (clock.now() - start > limitMs) throw new Error(`condition not met within ${limitMs} ms of virtual time (seed ${seed})`);
      clock.runFor(5);
      await flush();
    }
  };
  for (const m of members.slice(1)) {
    let done = false;
    m.join([members[0]!.address]).then(
      () => (done = true),
      () => (done = true),
    );
    await until(() => done);
  }
  await until(() => members.every((m) => m.members().length === names.length));
  return { members, network, until, close: async () => void (await Promise.all(members.map((m) => m.close()))) };
}
