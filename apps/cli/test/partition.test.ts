/**
 * A real network partition between two groups of `swim agent` processes (issue 5): three agents in
 * one network namespace, two in another, joined by a veth pair. Taking the link down cuts the two
 * groups apart (each declares the other dead and, past gossipToTheDeadMs, forgets it); bringing it
 * back up must heal the cluster with no manual join: the reconnect (Serf-style) does it.
 *
 * Network namespaces need root with CAP_NET_ADMIN, which CI has; the test first creates and
 * deletes a probe namespace, and is skipped (saying why) when that fails. The other route,
 * a loopback proxy with fault hooks, is not built: this machine allows namespaces.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsAbout, killAll, loggedView, startAgent, until, type Agent } from './agents.js';

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

describe.skipIf(unavailable !== undefined)('partition between two network namespaces (root)', () => {
  it('both sides declare the other dead, then heal without any manual join', { timeout: 120_000 }, async () => {
    setUpNamespaces();
    const a1 = await startAgent('a1', { netns: NS_A, bind: `${HOST_A}:0` });
    const others = await Promise.all([
      startAgent('a2', { netns: NS_A, bind: `${HOST_A}:0`, join: [a1.address] }),
      startAgent('a3', { netns: NS_A, bind: `${HOST_A}:0`, join: [a1.address] }),
      startAgent('b1', { netns: NS_B, bind: `${HOST_B}:0`, join: [a1.address] }),
      startAgent('b2', { netns: NS_B, bind: `${HOST_B}:0`, join: [a1.address] }),
    ]);
    const agents = [a1, ...others];
    const groupA = agents.filter((agent) => agent.name.startsWith('a'));
    const groupB = agents.filter((agent) => agent.name.startsWith('b'));
    await until('all five converge across the veth link', 20_000, () => converged(agents));

    ip('-n', NS_A, 'link', 'set', VETH_A, 'down');
    const cutAt = Date.now();
    // Each side holds the other dead, and stays up meanwhile: nobody in its own group is lost.
    await until('each group holds the other dead', 30_000, () =>
      groupA.every((agent) => groupB.every((b) => loggedView(agent).get(b.name)?.state === 'dead')) &&
      groupB.every((agent) => groupA.every((a) => loggedView(agent).get(a.name)?.state === 'dead')),
    );
    // Stay apart well past gossipToTheDeadMs (3 s in the test config), so both sides reap the other.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 15_000 - (Date.now() - cutAt))));
    for (const [side, own] of [[groupA, groupA], [groupB, groupB]] as const) {
      for (const agent of side) {
        for (const peer of own) if (peer !== agent) expect(loggedView(agent).get(peer.name)?.state, `${agent.name} about ${peer.name}`).toBe('alive');
      }
    }

    ip('-n', NS_A, 'link', 'set', VETH_A, 'up');
    const healed = await until('the cluster heals with no manual join', 45_000, () => converged(agents));
    console.log(`partition healed ${healed} ms after the link came back up`);
    // No `swim join` was run: the only joins logged are the start-up ones.
    for (const agent of agents) expect(agent.lines.filter((line) => line.event === 'joined').length, agent.name).toBeLessThanOrEqual(1);
    // The cut was real: every agent in A logged b1 dead during it.
    for (const agent of groupA) expect(eventsAbout(agent, 'dead', 'b1').length, agent.name).toBeGreaterThan(0);
  });
});
