/**
 * A real network partition between two groups of `swim agent` processes (issue 5): three agents
 * against two. Cutting them apart makes each side declare the other dead and, past
 * gossipToTheDeadMs, forget it (awaited: no member of one side left in any table of the other);
 * ending the cut must heal the cluster with no manual join: the core's reconnect (Serf-style) does
 * it. Two ways to cut, same scenario:
 * - network namespaces (three agents in one, two in another, a veth pair between; the link goes
 *   down): needs root with CAP_NET_ADMIN, which CI has; probed first, skipped (saying why) without;
 * - a loopback proxy with fault hooks (test/loopback-proxy.ts): runs anywhere.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsAbout, killAll, loggedView, membersOf, startAgent, until, type Agent, type MembersReply } from './agents.js';
import { LoopbackProxy } from './loopback-proxy.js';
import { NamespaceProbe } from './namespace-probe.js';

const tag = `${process.pid % 10_000}`;
const NS_A = `swim-a-${tag}`;
const NS_B = `swim-b-${tag}`;
const VETH_A = `swa${tag}`;
const VETH_B = `swb${tag}`;
// A /24 of our own per run, so parallel runs on one machine never share addresses.
const SUBNET = `10.${100 + (process.pid % 100)}.${(process.pid >> 7) % 250}`;
const HOST_A = `${SUBNET}.1`;
const HOST_B = `${SUBNET}.2`;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Why network namespaces cannot be used here, or undefined when they can. */
function namespacesUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  const probe = `swim-probe-${tag}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (error) {
    return `ip netns add failed: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
}

const unavailable = namespacesUnavailable();
if (unavailable !== undefined) console.warn(`partition test skipped: network namespaces unavailable (${unavailable})`);

function setUpNamespaces(): void {
  ip('netns', 'add', NS_A);
  ip('netns', 'add', NS_B);
  ip('link', 'add', VETH_A, 'netns', NS_A, 'type', 'veth', 'peer', 'name', VETH_B, 'netns', NS_B);
  ip('-n', NS_A, 'addr', 'add', `${HOST_A}/24`, 'dev', VETH_A);
  ip('-n', NS_B, 'addr', 'add', `${HOST_B}/24`, 'dev', VETH_B);
  for (const [ns, dev] of [[NS_A, VETH_A], [NS_B, VETH_B]] as const) {
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'link', 'set', dev, 'up');
  }
}

function tearDownNamespaces(): void {
  for (const ns of [NS_A, NS_B]) {
    try {
      ip('netns', 'del', ns);
    } catch {
      // Not created (setup failed early) or already gone.
    }
  }
}

afterAll(() => {
  killAll();
  if (unavailable === undefined) tearDownNamespaces();
});

/** Every agent's log says it holds every other agent alive. */
function converged(agents: readonly Agent[]): boolean {
  return agents.every((agent) => {
    const view = loggedView(agent);
    return agents.every((other) => other === agent || view.get(other.name)?.state === 'alive');
  });
}

interface Cut {
  /** Start a1, a2, a3, b1, b2 (a1 first; the others join it). */
  startAll(): Promise<Agent[]>;
  cut(): void;
  restore(): void;
  /** The agent's GET /members. */
  members(agent: Agent): Promise<MembersReply>;
}

/** Bounds for a loaded 2-core machine: each step takes a few seconds on an idle one. */
const CONVERGE_MS = 60_000;

async function partitionHeals({ startAll, cut, restore, members }: Cut): Promise<void> {
  const agents = await startAll();
  const groupA = agents.filter((agent) => agent.name.startsWith('a'));
  const groupB = agents.filter((agent) => agent.name.startsWith('b'));
  const otherSide = (agent: Agent) => (groupA.includes(agent) ? groupB : groupA);
  await until('all five converge', CONVERGE_MS, () => converged(agents));

  cut();
  await until('each group holds the other dead', CONVERGE_MS, () =>
    agents.every((agent) => otherSide(agent).every((other) => loggedView(agent).get(other.name)?.state === 'dead')),
  );
  // Stay apart until both sides have reaped the other (gossipToTheDeadMs, 3 s in the test config):
  // only reconnect can bring them back then.
  await until('each group has forgotten the other', CONVERGE_MS, async () => {
    const views = await Promise.all(agents.map(members));
    return agents.every((agent, i) => otherSide(agent).every((other) => !views[i]!.members.some((m) => m.name === other.name)));
  });
  // Nobody lost anyone in its own group meanwhile: no death of a peer was logged at any point of
  // the cut, and each still holds each peer. A suspicion may be open at this instant: with a
  // 100 ms probe timeout (FAST_CONFIG) and no helper for indirect probes in a group of two, a peer
  // starved that long on a loaded host is suspected until it refutes, as SWIM intends.
  for (const side of [groupA, groupB]) {
    for (const agent of side) {
      for (const peer of side) {
        if (peer === agent) continue;
        expect(eventsAbout(agent, 'dead', peer.name), `${agent.name} declared ${peer.name} dead`).toEqual([]);
        expect(['alive', 'suspect'], `${agent.name} about ${peer.name}`).toContain(loggedView(agent).get(peer.name)?.state);
      }
    }
  }

  restore();
  const healed = await until('the cluster heals with no manual join', 90_000, () => converged(agents));
  console.log(`partition healed ${healed} ms after the cut ended`);
  // No `swim join` was run: the only joins logged are the start-up ones.
  for (const agent of agents) expect(agent.lines.filter((line) => line.event === 'joined').length, agent.name).toBeLessThanOrEqual(1);
  // The cut was real: every agent in A logged b1 dead during it.
  for (const agent of groupA) expect(eventsAbout(agent, 'dead', 'b1').length, agent.name).toBeGreaterThan(0);
}

describe.skipIf(unavailable !== undefined)('partition between two network namespaces (root)', () => {
  it('network namespaces, veth link down: both sides declare the other dead and forget it, then heal without any manual join', { timeout: 300_000 }, async () => {
    setUpNamespaces();
    const probes = new Map([NS_A, NS_B].map((ns) => [ns, new NamespaceProbe(ns)]));
    const namespaceOf = (agent: Agent) => (agent.name.startsWith('a') ? NS_A : NS_B);
    try {
      await partitionHeals({
        startAll: async () => {
          const a1 = await startAgent('a1', { netns: NS_A, bind: `${HOST_A}:0` });
          const others = await Promise.all([
            startAgent('a2', { netns: NS_A, bind: `${HOST_A}:0`, join: [a1.address] }),
            startAgent('a3', { netns: NS_A, bind: `${HOST_A}:0`, join: [a1.address] }),
            startAgent('b1', { netns: NS_B, bind: `${HOST_B}:0`, join: [a1.address] }),
            startAgent('b2', { netns: NS_B, bind: `${HOST_B}:0`, join: [a1.address] }),
          ]);
          return [a1, ...others];
        },
        cut: () => ip('-n', NS_A, 'link', 'set', VETH_A, 'down'),
        restore: () => ip('-n', NS_A, 'link', 'set', VETH_A, 'up'),
        members: (agent) => probes.get(namespaceOf(agent))!.members(agent.rpc),
      });
    } finally {
      probes.forEach((probe) => probe.close());
    }
  });
});

describe('partition through a loopback proxy with fault hooks', () => {
  const proxy = new LoopbackProxy();
  afterAll(() => proxy.close());

  it('loopback proxy, datagrams dropped and connections refused: both sides declare the other dead and forget it, then heal without any manual join', { timeout: 300_000 }, async () => {
    const names = ['a1', 'a2', 'a3', 'b1', 'b2'];
    const start = async (name: string, join: string[]): Promise<Agent> => {
      const { bind, advertise } = await proxy.add(name, names.indexOf(name) + 1);
      const agent = await startAgent(name, { bind, join, extra: ['--advertise', advertise] });
      proxy.setRealPort(name, agent.lines[0]!['port'] as number);
      return agent;
    };
    await partitionHeals({
      startAll: async () => {
        const a1 = await start('a1', []);
        return [a1, ...(await Promise.all(names.slice(1).map((name) => start(name, [a1.address]))))];
      },
      cut: () => proxy.partition(['a1', 'a2', 'a3'], ['b1', 'b2']),
      restore: () => proxy.heal(),
      members: membersOf,
    });
    expect(proxy.dropped).toBeGreaterThan(0);
  });
});
