/**
 * Protocol version negotiation over a real transport (docs/compatibility.md): members of today's
 * codec (versions 1-2) and of a test-only next version (1-3, next-version-codec.ts) form one
 * cluster whichever side joins the other, write version 2 while any member of today is alive, with
 * no suspicion; switch to version 3 once the last one has left; and a build that shares no version
 * with the cluster is refused at join with both ranges named.
 *
 * Usage, in a transport package's test file (a clock only for virtual time):
 *
 *     describeProtocolNegotiation('memory (virtual time)', async () => ({ create, settle, close, clock }));
 */
import { Member, JoinError, type Clock, type MembershipChange, type Transport } from '@swim/runtime';
import type { WireCodec } from '@swim/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NEXT_VERSION, nextVersionCodec, type NextVersionCodec } from './next-version-codec.js';

export interface NegotiationHarness {
  /** A new endpoint with its own address, not listening yet. */
  create(): Promise<Transport>;
  /** Let `ms` of time pass: a real wait, or a virtual clock advanced by `ms`. */
  settle(ms: number): Promise<void>;
  /** Release everything the harness made. */
  close(): Promise<void>;
  /** The members' clock, for virtual time; real time when absent. */
  readonly clock?: Clock;
}

/** Fast timers, so a real-time run takes seconds; suspicion still needs several lost probes. */
const CONFIG = { probeIntervalMs: 200, probeTimeoutMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 2_000, suspicionMult: 4 } as const;
/** Longest wait for a condition, in harness time (a loaded machine never needs it). */
const DEADLINE_MS = 30_000;
const STEP_MS = 20;
/** A case's bound in real time: a few conditions at most DEADLINE_MS each on a loaded machine. */
const TEST_TIMEOUT_MS = 120_000;

/** A member under test and what happened to it. */
interface Node {
  readonly name: string;
  readonly member: Member;
  readonly codec: NextVersionCodec | undefined;
  /** Every suspect and dead event it reported, as "observer: subject event". */
  readonly accusations: string[];
}

export function describeProtocolNegotiation(name: string, factory: () => Promise<NegotiationHarness>): void {
  describe(`protocol negotiation: ${name}`, () => {
    let harness: NegotiationHarness;
    let nodes: Node[];

    beforeEach(async () => {
      harness = await factory();
      nodes = [];
    });

    afterEach(async () => {
      await Promise.all(nodes.map((node) => node.member.close().catch(() => undefined)));
      await harness.close();
    });

    /** A member of today's codec (codec undefined) or of the next version. */
    async function start(nodeName: string, codec: WireCodec | undefined): Promise<Node> {
      const member = new Member({
        name: nodeName,
        transport: await harness.create(),
        config: CONFIG,
        seed: nodes.length + 1,
        ...(harness.clock === undefined ? {} : { clock: harness.clock }),
        ...(codec === undefined ? {} : { codec }),
      });
      const node: Node = { name: nodeName, member, codec: codec as NextVersionCodec | undefined, accusations: [] };
      member.addEventListener('change', (event) => {
        const change = (event as CustomEvent<MembershipChange>).detail;
        if (change.event === 'suspect' || change.event === 'dead') node.accusations.push(`${nodeName}: ${change.member.name} ${change.event}`);
      });
      nodes.push(node);
      return node;
    }

    /** `promise`'s outcome, letting harness time pass until it settles (a join waits on the network). */
    async function drive<T>(promise: Promise<T>): Promise<T> {
      let settled = false;
      const watched = promise.finally(() => {
        settled = true;
      });
      watched.catch(() => undefined);
      for (let waited = 0; !settled; waited += STEP_MS) {
        if (waited >= DEADLINE_MS) throw new Error(`timed out after ${DEADLINE_MS} ms waiting for a join`);
        await harness.settle(STEP_MS);
      }
      return watched;
    }

    async function until(what: string, condition: () => boolean): Promise<void> {
      for (let waited = 0; !condition(); waited += STEP_MS) {
        if (waited >= DEADLINE_MS) throw new Error(`timed out after ${DEADLINE_MS} ms waiting until ${what}`);
        await harness.settle(STEP_MS);
      }
    }

    /** Whether every member in `group` sees every other alive. */
    const converged = (group: readonly Node[]): boolean =>
      group.every((a) => group.every((b) => a === b || a.member.member(b.name)?.state === 'alive'));

    const accusations = (): string[] => nodes.flatMap((node) => node.accusations);

    it('members of today and of the next version join each other both ways and speak version 2, without suspicion', { timeout: TEST_TIMEOUT_MS }, async () => {
      const n1 = await start('n1', nextVersionCodec());
      const t1 = await start('t1', undefined);
      const n2 = await start('n2', nextVersionCodec());
      const t2 = await start('t2', undefined);
      await drive(t1.member.join([n1.member.address])); // today joins the next version
      await drive(n2.member.join([t1.member.address])); // the next version joins today
      await drive(t2.member.join([n2.member.address]));
      const all = [n1, t1, n2, t2];
      await until('all four see each other alive', () => converged(all));
      await until('every member has heard every range and writes version 2', () =>
        all.every((node) => node.member.protocolVersion === 2 && all.every((other) => node === other || node.member.protocolOf(other.name) !== undefined)),
      );
      // Some probe rounds and push-pulls at version 2: a packet today's members could not read would show as suspicion.
      await harness.settle(3_000);
      expect(accusations()).toEqual([]);
      expect(n1.member.protocolOf('t1')).toEqual({ min: 1, max: 2 });
      expect(t1.member.protocolOf('n1')).toEqual({ min: 1, max: NEXT_VERSION });
      for (const node of [n1, n2]) expect(node.codec!.tally.packetsSent.get(NEXT_VERSION) ?? 0).toBe(0);
      // t1 read one request it could not: n2's join, first written in version 3, then again in 2.
      expect(t1.member.counters.decodeErrors).toBe(1);
      expect(t2.member.counters.decodeErrors).toBe(0);
      for (const node of [t1, t2]) expect(node.member.counters.unknownMessages).toBe(0);
    });

    it('switches to version 3 once the last member of today has left, and only then', { timeout: TEST_TIMEOUT_MS }, async () => {
      const n1 = await start('n1', nextVersionCodec());
      const n2 = await start('n2', nextVersionCodec());
      const t1 = await start('t1', undefined);
      await drive(n2.member.join([n1.member.address]));
      // Alone, n1 and n2 speak 3 to each other; t1 joins once both have (on a loaded machine a join
      // right after theirs may come first).
      const sentAt3 = (node: Node): number => node.codec!.tally.packetsSent.get(NEXT_VERSION) ?? 0;
      await until('n1 and n2 write version 3 to each other', () => sentAt3(n1) > 0 && sentAt3(n2) > 0);
      await drive(t1.member.join([n2.member.address]));
      await until('all three see each other alive', () => converged([n1, n2, t1]));
      await until('the next-version members write version 2', () => n1.member.protocolVersion === 2 && n2.member.protocolVersion === 2);
      // Before they knew t1, n1 and n2 spoke 3 to each other; not since.
      const sentAt2 = [n1, n2].map(sentAt3);
      await harness.settle(2_000);
      expect([n1, n2].map(sentAt3)).toEqual(sentAt2);
      expect(t1.member.counters.decodeErrors).toBe(0);

      await drive(t1.member.leave());
      await until('n1 and n2 see t1 left', () => n1.member.member('t1')?.state === 'left' && n2.member.member('t1')?.state === 'left');
      await until('both write version 3, and read its hints and ping field', () =>
        [n1, n2].every((node) => node.member.protocolVersion === NEXT_VERSION && node.codec!.tally.hintsReceived > 0 && node.codec!.tally.pingsWithFieldReceived > 0),
      );
      expect([n1, n2].map(sentAt3).every((sent, i) => sent > sentAt2[i]!)).toBe(true);
      await harness.settle(2_000);
      expect(accusations()).toEqual([]);
    });

    it('refuses a joiner whose versions do not overlap the cluster, naming both ranges, both ways', { timeout: TEST_TIMEOUT_MS }, async () => {
      const t1 = await start('t1', undefined);
      const newer = await start('v3only', nextVersionCodec(NEXT_VERSION));
      const older = await start('t2', undefined);
      const cluster3 = await start('v3seed', nextVersionCodec(NEXT_VERSION));

      const refusal = async (joiner: Node, seed: Node): Promise<string> => {
        try {
          await drive(joiner.member.join([seed.member.address]));
        } catch (error) {
          if (error instanceof JoinError) return error.message;
          throw error;
        }
        throw new Error(`${joiner.name} joined ${seed.name}: expected a refusal`);
      };
      const newerRefused = await refusal(newer, t1);
      expect(newerRefused).toMatch(/protocol versions do not overlap/);
      expect(newerRefused).toMatch(/this member speaks 1-2/);
      expect(newerRefused).toMatch(/this member speaks 3(?!-)/);
      const olderRefused = await refusal(older, cluster3);
      expect(olderRefused).toMatch(/protocol versions do not overlap/);
      expect(olderRefused).toMatch(/speaks 3/);
      expect(olderRefused).toMatch(/this member speaks 1-2/);
      expect(t1.member.members().map((m) => m.name)).toEqual(['t1']);
      expect(cluster3.member.members().map((m) => m.name)).toEqual(['v3seed']);
    });
  });
}
