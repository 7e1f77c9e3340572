// member.metrics(): the snapshot exporters read. Every family named by the operations issue is
// there and well formed, its values follow what the member saw (events, the core's counters), and
// added sources are included, their bad families counted and left out.
import type { MemberState } from '@swim/core';
import { afterEach, describe, expect, it } from 'vitest';
import { metricFamilyProblem, type Member, type MetricFamily, type MetricsSnapshot } from '../src/index.js';
import { world, type World } from './world.js';

function family(snapshot: MetricsSnapshot, name: string): MetricFamily {
  const found = snapshot.families.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no family ${name} in ${snapshot.families.map((f) => f.name).join(', ')}`);
  return found;
}

/** The value of the series with these labels (0 labels: the only series). */
function value(snapshot: MetricsSnapshot, name: string, labels: Record<string, string> = {}): number {
  const sample = family(snapshot, name).samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (sample === undefined) throw new Error(`no sample ${JSON.stringify(labels)} in ${name}`);
  return sample.value;
}

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function cluster(names: readonly string[]): Promise<Member[]> {
  w = world('virtual');
  const members = names.map((name) => w!.add(name));
  for (const m of members.slice(1)) await w.settle(m.join([members[0]!.address]));
  await w.until(() => members.every((m) => m.members().length === names.length));
  return members;
}

describe('member.metrics()', () => {
  it('has every family the operations issue asks for, each well formed, with unique names', async () => {
    const [a] = await cluster(['a']);
    const snapshot = a!.metrics();
    const names = snapshot.families.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of snapshot.families) expect(metricFamilyProblem(f), f.name).toBeUndefined();
    for (const name of [
      'members',
      'health_score',
      'sent_packets',
      'received_packets',
      'sent_bytes',
      'received_bytes',
      'probes',
      'suspicions_raised',
      'suspicions_refuted',
      'verdict_checks',
      'verdict_checks_acked',
      'dead_verdicts',
      'push_pulls',
      'declarer_push_pulls',
      'move_push_pulls',
      'missed_moves_corrected',
      'forced_leaves',
      'broadcast_queue_messages',
      'decode_errors',
    ]) {
      expect(names).toContain(name);
    }
    // Every state and every label value is present from the start (0), so queries and rates see the series.
    expect(family(snapshot, 'members').samples.map((s) => s.labels['state'])).toEqual(['alive', 'suspect', 'dead', 'left']);
    expect(family(snapshot, 'probes').samples.map((s) => s.labels['result'])).toEqual(['direct_ack', 'indirect_ack', 'stream_ack', 'failed']);
    expect(family(snapshot, 'dead_verdicts').samples.map((s) => s.labels['cause'])).toEqual(['timeout', 'gossip']);
    expect(value(snapshot, 'members', { state: 'alive' })).toBe(1);
    expect(value(snapshot, 'health_score')).toBe(0);
    expect(family(snapshot, 'sent_bytes').unit).toBe('By');
  });

  it('follows the core and the events: traffic, probes, push-pulls, queue depth', async () => {
    const [a, b, c] = await cluster(['a', 'b', 'c']);
    await w!.until(() => a!.counters.pushPulls > 0 && value(a!.metrics(), 'probes', { result: 'direct_ack' }) > 3);
    const snapshot = a!.metrics();
    expect(value(snapshot, 'members', { state: 'alive' })).toBe(3);
    expect(value(snapshot, 'sent_packets')).toBe(a!.counters.packetsOut);
    expect(value(snapshot, 'received_bytes')).toBe(a!.counters.bytesIn);
    expect(value(snapshot, 'push_pulls')).toBe(a!.counters.pushPulls);
    expect(value(snapshot, 'member_events', { event: 'join' })).toBe(2);
    expect(value(snapshot, 'incarnation')).toBe(a!.incarnation);
    expect(value(snapshot, 'protocol_version')).toBe(a!.protocolVersion);
    expect(b!.metrics().families.length).toBe(c!.metrics().families.length);
  });

  it('counts probes acked through helpers when the direct path is cut', async () => {
    const [a, b] = await cluster(['a', 'b', 'c']);
    // a's pings never reach b; c relays them (memberlist probeNode's indirect phase).
    w!.network.setLinkLoss(a!.address, b!.address, 1);
    await w!.until(() => value(a!.metrics(), 'probes', { result: 'indirect_ack' }) >= 2, 10_000);
    expect(value(a!.metrics(), 'indirect_probes')).toBeGreaterThanOrEqual(2);
  });

  it('counts a crash: failed probes, a suspicion raised, a dead verdict by cause, members by state', async () => {
    const members = await cluster(['a', 'b', 'c', 'd']);
    const [a, b, c, d] = members as [Member, Member, Member, Member];
    const deathsSeen = new Map<Member, { timeout: number; gossip: number }>();
    for (const m of [a, b, c]) {
      const seen = { timeout: 0, gossip: 0 };
      deathsSeen.set(m, seen);
      m.on('dead', (change) => seen[change.cause!.kind]++);
    }
    w!.network.crash(d.address);
    const stateOf = (m: Member): Record<MemberState, number> => {
      const s = m.metrics();
      return { alive: value(s, 'members', { state: 'alive' }), suspect: value(s, 'members', { state: 'suspect' }), dead: value(s, 'members', { state: 'dead' }), left: value(s, 'members', { state: 'left' }) };
    };
    await w!.until(() => [a, b, c].every((m) => stateOf(m).dead === 1), 20_000);
    for (const m of [a, b, c]) {
      const s = m.metrics();
      expect(stateOf(m)).toEqual({ alive: 3, suspect: 0, dead: 1, left: 0 });
      // The verdicts by cause are exactly the dead events the member dispatched.
      const seen = deathsSeen.get(m)!;
      expect(value(s, 'dead_verdicts', { cause: 'timeout' })).toBe(seen.timeout);
      expect(value(s, 'dead_verdicts', { cause: 'gossip' })).toBe(seen.gossip);
      expect(seen.timeout + seen.gossip).toBe(1);
      expect(value(s, 'member_events', { event: 'dead' })).toBe(1);
      expect(value(s, 'suspicions_raised')).toBe(m.counters.suspicionsRaised);
    }
    const total = (name: string, labels: Record<string, string>) => [a, b, c].reduce((sum, m) => sum + value(m.metrics(), name, labels), 0);
    expect(total('probes', { result: 'failed' })).toBeGreaterThan(0);
    expect(total('dead_verdicts', { cause: 'timeout' })).toBeGreaterThan(0);
    expect([a, b, c].reduce((sum, m) => sum + value(m.metrics(), 'suspicions_raised'), 0)).toBeGreaterThan(0);
  });

  it('counts refuted suspicions about itself', async () => {
    const [a, b, c] = await cluster(['a', 'b', 'c']);
    // Cut b off for a moment: the others suspect it, and b refutes once it hears of it.
    w!.network.partition([b!.address], [a!.address, c!.address]);
    await w!.until(() => a!.member('b')?.state === 'suspect', 10_000);
    w!.network.heal();
    await w!.until(() => value(b!.metrics(), 'suspicions_refuted') > 0 && a!.member('b')?.state === 'alive', 10_000);
    expect(value(b!.metrics(), 'suspicions_refuted')).toBe(b!.counters.refutations);
  });

  it('includes added sources; leaves out and counts what is malformed, a reused name, or a source that throws', async () => {
    const [a] = await cluster(['a']);
    let drops = 3;
    const good: MetricFamily = { name: 'transport_dropped_packets', type: 'counter', help: 'drops', unit: '{packet}', labelNames: ['cause'], samples: [{ labels: { cause: 'oversize' }, value: drops }] };
    const stop = a!.addMetricsSource(() => [{ ...good, samples: [{ labels: { cause: 'oversize' }, value: drops }] }]);
    expect(value(a!.metrics(), 'transport_dropped_packets', { cause: 'oversize' })).toBe(3);
    drops = 5;
    // Read at every snapshot, not copied once.
    expect(value(a!.metrics(), 'transport_dropped_packets', { cause: 'oversize' })).toBe(5);
    expect(value(a!.metrics(), 'metrics_dropped_families')).toBe(0);

    const bad: MetricFamily[] = [
      { ...good, name: 'bad-name' },
      { ...good, name: 'members' }, // the member's own
      { ...good, name: 'wrong_labels', samples: [{ labels: { other: 'x' }, value: 1 }] },
      { ...good, name: 'negative', samples: [{ labels: { cause: 'x' }, value: -1 }] },
      { ...good, name: 'already_total_total' },
      { ...good, name: 'twice', samples: [good.samples[0]!, good.samples[0]!] },
    ];
    const stopBad = a!.addMetricsSource(() => bad);
    const stopThrowing = a!.addMetricsSource(() => {
      throw new Error('source down');
    });
    const snapshot = a!.metrics();
    expect(value(snapshot, 'metrics_dropped_families')).toBe(bad.length + 1);
    expect(snapshot.families.filter((f) => f.name === 'members')).toHaveLength(1);
    for (const f of bad) if (f.name !== 'members') expect(snapshot.families.map((x) => x.name)).not.toContain(f.name);
    for (const f of snapshot.families) expect(metricFamilyProblem(f), f.name).toBeUndefined();

    stop();
    stopBad();
    stopThrowing();
    expect(a!.metrics().families.map((f) => f.name)).not.toContain('transport_dropped_packets');
  });
});
