/**
 * Finding 3: `ping-req` relayed to any address. The attacker sends an agent compound packets of
 * ping-reqs (up to 1,399 bytes each) naming a target that is not a member, at the attacker's second
 * socket, with the reply address there too; the agent pings that "target" and nacks it, each
 * packet carrying whatever gossip it has queued. So that gossip is queued, the attacker first sends
 * forged alives about fake members (issue 10 measured 1,399 B in → 84,628 B out with gossip
 * piggybacked), and members join with large metadata and then leave while the packets arrive. Every datagram the attacker's sockets receive
 * is attributed to the packet that caused it (the ping names our target, the nack carries our
 * sequence number): amplification = bytes out / bytes in, per packet. Done when ≤ 2 for every one.
 */
import { encodedSize, PACKET_HEADER_BYTES, type PingReqMessage } from '@swim/core';
import { delay, killEach, members, startAgent, until, within, type AgentProcess } from './processes.js';
import { fakeAlivePackets, forgePacket, messagesOf, UdpAttacker } from './forge.js';
import { check, LIMITS, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

const BUDGET_BYTES = 1399;
const FIRE_EVERY_MS = 100;
/** `--tag pad=xxx…`: 503 characters make the agent's 512-byte maximum of metadata (Serf tags: 9 bytes around the value). */
const META_PAD = 503;
/** Forged alives sent before the ping-reqs, so that the reflector has gossip queued whatever the churn's timing. */
const PRIMING_FAKES = 1000;
/** Sequence numbers of packet i are i * SEQ_STRIDE + j. */
const SEQ_STRIDE = 1000;

/** As many ping-reqs as fit in one packet of {@link BUDGET_BYTES}, all aimed at `victim`. */
function pingReqPacket(index: number, victim: string): Buffer {
  const messages: PingReqMessage[] = [];
  let size = PACKET_HEADER_BYTES;
  for (let j = 0; j < SEQ_STRIDE; j++) {
    const message: PingReqMessage = { type: 'ping-req', seq: index * SEQ_STRIDE + j, target: `t${index}.${j}`, targetAddress: victim, nack: true, sourceName: 'amp-attacker', sourceAddress: victim };
    const next = size + encodedSize(message);
    if (next > BUDGET_BYTES) break;
    messages.push(message);
    size = next;
  }
  return forgePacket(messages);
}

/** Which of our packets caused a datagram the reflector sent, from the ping's target or the nack's sequence number. */
function causeOf(bytes: Uint8Array): { index: number | undefined; gossip: number } {
  let index: number | undefined;
  let gossip = 0;
  for (const m of messagesOf(bytes)) {
    if (m.type === 'ping') index ??= Number(/^t(\d+)\./.exec(m.target)?.[1] ?? NaN);
    else if (m.type === 'nack' || m.type === 'ack') index ??= Math.floor(m.seq / SEQ_STRIDE);
    else gossip++;
  }
  return { index: index !== undefined && Number.isFinite(index) ? index : undefined, gossip };
}

export async function runAmplification(sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const procs: AgentProcess[] = [];
  const sender = await UdpAttacker.open();
  const victim = await UdpAttacker.open();
  try {
    const reflector = await startAgent('amp-reflector');
    procs.push(reflector);
    const packetBytes: number[] = [];
    let churnDone = false;
    // Gossip lingers only a few gossip ticks (retransmitMult × log n sends): fire a packet as soon
    // as the reflector logs a membership change, and one every FIRE_EVERY_MS besides.
    const firing = (async () => {
      let changes = 0;
      let firedAt = 0;
      while (!churnDone || packetBytes.length < sizes.pingReqPackets) {
        const now = reflector.log.length;
        if (now !== changes || Date.now() - firedAt >= FIRE_EVERY_MS) {
          changes = now;
          firedAt = Date.now();
          const packet = pingReqPacket(packetBytes.length, victim.address);
          packetBytes.push(packet.length);
          await sender.send(reflector.address, packet);
        }
        await delay(5);
      }
    })();
    // Churn: members with the largest metadata join, then leave; the reflector queues gossip about each.
    const meta = { pad: 'x'.repeat(META_PAD) };
    const churn = await Promise.all(Array.from({ length: sizes.churnAgents }, (_, i) => startAgent(`amp-churn-${i}`, { join: [reflector.address], meta })));
    procs.push(...churn);
    const churnNames = churn.map((c) => c.name);
    await until('the reflector sees the churn members alive', 30_000, async () => {
      const view = await members(reflector);
      return churnNames.every((n) => view.find((m) => m.name === n)?.state === 'alive');
    });
    // More gossip to piggyback: forged alives about fake members (admitted as far as the caps allow).
    for (const packet of fakeAlivePackets('amp-fake-', PRIMING_FAKES, 100)) await sender.send(reflector.address, packet);
    // The churn members leave (a leave is gossiped before the process exits).
    for (const c of churn) c.child.kill('SIGTERM');
    await until('the churn members have left and exited', 30_000, () => churn.every((c) => c.exit !== undefined));
    churnDone = true;
    await firing;
    // Answers come within a probe timeout; wait until the sockets have been quiet for 500 ms.
    let heard = 0;
    let quietSince = Date.now();
    await within(10_000, () => {
      const now = victim.received.length + sender.received.length;
      if (now !== heard) {
        heard = now;
        quietSince = Date.now();
      }
      return Date.now() - quietSince >= 500;
    });

    const outByPacket = new Array<number>(packetBytes.length).fill(0);
    let unattributed = 0;
    let withGossip = 0;
    const received = [...victim.received, ...sender.received];
    for (const r of received) {
      const { index, gossip } = causeOf(r.bytes);
      if (gossip > 0) withGossip++;
      if (index !== undefined && index < outByPacket.length) outByPacket[index]! += r.bytes.length;
      else unattributed += r.bytes.length;
    }
    const bytesIn = packetBytes.reduce((s, b) => s + b, 0);
    const bytesOut = received.reduce((s, r) => s + r.bytes.length, 0);
    const factors = outByPacket.map((out, i) => out / packetBytes[i]!);
    const worstIndex = factors.indexOf(Math.max(...factors));
    const worst = factors[worstIndex] ?? 0;
    const pingReqsPerPacket = messagesOf(pingReqPacket(0, victim.address)).length;
    const rows: Array<[string, string]> = [
      ['packets sent', `${packetBytes.length} compound packets of ${pingReqsPerPacket} ping-reqs (${packetBytes[0]} B each), target and reply address the attacker's second socket; gossip queued by ${PRIMING_FAKES} forged alives sent before and ${sizes.churnAgents} members that joined with ${META_PAD + 9}-byte meta and left meanwhile`],
      ['bytes in → out', `${bytesIn.toLocaleString('en')} B → ${bytesOut.toLocaleString('en')} B in ${received.length} datagrams (${withGossip} carrying gossip; ${unattributed} B unattributed): ${(bytesOut / bytesIn).toFixed(2)}×`],
      ['worst single packet', `${packetBytes[worstIndex] ?? 0} B → ${outByPacket[worstIndex] ?? 0} B: ${worst.toFixed(1)}×`],
    ];
    return {
      scenario: 'amplification',
      title: 'ping-req reflection and amplification (finding 3)',
      wallMs: performance.now() - started,
      rows,
      figures: { packets: packetBytes.length, pingReqsPerPacket, bytesIn, bytesOut, datagramsOut: received.length, datagramsWithGossip: withGossip, unattributedBytes: unattributed, overall: bytesOut / bytesIn, worstPacket: worst, outByPacket },
      checks: [
        check('amplification of any single packet', `${worst.toFixed(2)}× (${(outByPacket[worstIndex] ?? 0).toLocaleString('en')} B out for ${packetBytes[worstIndex] ?? 0} B in)`, `≤ ${LIMITS.amplification}×`, worst <= LIMITS.amplification),
        check('reflector still running', reflector.exit === undefined ? 'running' : 'EXITED', 'running', reflector.exit === undefined),
      ],
    };
  } finally {
    sender.close();
    victim.close();
    killEach(procs);
  }
}
