/**
 * Finding 4: a forged leave (`dead` with from == node) for a real member, then an `alive` for its
 * name at the attacker's address, took the name at once; the real member was then declared dead by
 * its peers' timers. Sent to the two peers of the victim (not to the victim). Watched for a failure
 * detection bound: did a peer take the attacker's address, did a peer declare the real member dead,
 * and is it alive at its own address in every view at the end.
 */
import { failureDetectionBoundMs, resolveConfig } from '@swim/core';
import { forgePacket, messagesOf, UdpAttacker } from './forge.js';
import { FAST_CONFIG, killEach, logged, members, startCluster, within, type AgentProcess } from './processes.js';
import { check, ms, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

const EMPTY = new Uint8Array(0);

export async function runHijack(_sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const agents = await startCluster(['hijack-a', 'hijack-b', 'hijack-victim']);
  const [a, b, victim] = agents as [AgentProcess, AgentProcess, AgentProcess];
  const attacker = await UdpAttacker.open();
  try {
    const config = resolveConfig(FAST_CONFIG);
    const peers = [a, b];
    const known = (await members(a)).find((m) => m.name === victim.name)!;
    const forgedAt = Date.now();
    const leave = forgePacket([{ type: 'dead', incarnation: known.incarnation, node: victim.name, from: victim.name }]);
    const claim = forgePacket([{ type: 'alive', incarnation: known.incarnation + 1, node: victim.name, address: attacker.address, meta: EMPTY }]);
    for (const peer of peers) await attacker.send(peer.address, leave);
    for (const peer of peers) await attacker.send(peer.address, claim);

    const boundMs = failureDetectionBoundMs(config, agents.length);
    const tookAddress = new Set<string>();
    // The name declared dead at whatever address: the real member is then dead to its peers.
    const declaredDead = () => peers.filter((p) => logged(p, 'dead', victim.name).some((e) => e.time >= forgedAt));
    // Watch one detection bound (the time in which the peers' timers would declare it dead).
    await within(boundMs, async () => {
      for (const p of peers) {
        if (p.exit !== undefined) continue;
        const entry = (await members(p).catch(() => [])).find((m) => m.name === victim.name);
        if (entry?.address === attacker.address) tookAddress.add(p.name);
      }
      return false;
    });
    // Peers' logs also record a hijack that came and went between two polls.
    for (const p of peers) if (p.log.some(({ text }) => text.includes(`"name":"${victim.name}"`) && text.includes(`"address":"${attacker.address}"`))) tookAddress.add(p.name);
    const dead = declaredDead().map((p) => p.name);
    const finalViews = await Promise.all(
      peers.map(async (p) => {
        const entry = p.exit === undefined ? (await members(p).catch(() => [])).find((m) => m.name === victim.name) : undefined;
        return { viewer: p.name, state: entry?.state ?? 'absent', address: entry?.address, incarnation: entry?.incarnation };
      }),
    );
    const pingsToAttacker = attacker.received.filter((r) => messagesOf(r.bytes).some((m) => m.type === 'ping' && m.target === victim.name)).length;
    const aliveAtHome = finalViews.every((v) => v.state === 'alive' && v.address === victim.address);
    const viewText = finalViews.map((v) => `${v.viewer.replace('hijack-', '')}: ${v.state} at ${v.address === victim.address ? 'its own address' : v.address === attacker.address ? "the attacker's address" : v.address}@${v.incarnation}`).join(', ');
    return {
      scenario: 'hijack',
      title: 'Name hijack after a forged leave (finding 4)',
      wallMs: performance.now() - started,
      rows: [
        ['forged', `dead(${victim.name} from ${victim.name})@${known.incarnation}, then alive(${victim.name} at ${attacker.address})@${known.incarnation + 1}, to both peers`],
        ["peers that took the attacker's address", tookAddress.size === 0 ? 'none' : [...tookAddress].join(', ')],
        ['pings the attacker received for the name', String(pingsToAttacker)],
        [`real member declared dead within ${ms(boundMs)}`, dead.length === 0 ? 'no' : `yes, by ${dead.join(', ')}`],
        ['views at the end', viewText],
      ],
      figures: { incarnation: known.incarnation, tookAddress: [...tookAddress], pingsToAttacker, declaredDeadBy: dead, watchMs: boundMs, finalViews },
      checks: [
        check("no peer took the attacker's address for the name", tookAddress.size === 0 ? 'none' : [...tookAddress].join(', '), 'none', tookAddress.size === 0),
        check('the real member was never declared dead', dead.length === 0 ? 'never' : `by ${dead.join(', ')}`, 'never', dead.length === 0),
        check('the real member alive at its own address in every view', viewText, 'alive at its address', aliveAtHome),
        check('no agent exited', agents.filter((x) => x.exit !== undefined).map((x) => x.name).join(', ') || 'none', 'none', agents.every((x) => x.exit === undefined)),
      ],
    };
  } finally {
    attacker.close();
    killEach(agents);
  }
}
