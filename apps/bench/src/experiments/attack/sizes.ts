/**
 * How hard each scenario attacks. `QUICK` is what `pnpm test` runs (apps/bench/test/attack.test.ts):
 * the sizes where they are cheap to send, smaller ones where the attacker's own traffic
 * would dominate a test run. `FULL` is `pnpm bench attack`: the sizes issue 10 measured.
 */
const MiB = 2 ** 20;

export interface AttackSizes {
  /** Forged alive messages about fake members, and how many go in one datagram. */
  readonly fakeAlives: number;
  readonly alivesPerDatagram: number;
  /** Forged push-pulls, one stream each: so many entries, or as many as make a frame of about so many bytes. */
  readonly pushPulls: ReadonlyArray<{ readonly entries: number } | { readonly frameBytes: number }>;
  /** How long each flood's effects are watched after its last byte was sent. */
  readonly watchMs: number;
  /** Longest wait for a real kill -9 to be detected, after the floods. */
  readonly detectLimitMs: number;
  /** Members joining with large metadata (then leaving) while the ping-reqs arrive, so the reflector has gossip queued. */
  readonly churnAgents: number;
  readonly pingReqPackets: number;
  /** Connections that announce `announcedBytes` and send `sentBytes` of it. */
  readonly heldStreams: number;
  readonly heldAnnouncedBytes: number;
  readonly heldSentBytes: number;
  /** WebSocket clients that never read, `slowStreams` relayed streams of `slowStreamBytes` each. */
  readonly slowClients: number;
  readonly slowStreams: number;
  readonly slowStreamBytes: number;
  /** WebSocket sessions opened from one IP. */
  readonly sessionsFromOneIp: number;
  /** Seeds in one POST /join. */
  readonly joinSeeds: number;
}

export const QUICK: AttackSizes = {
  fakeAlives: 100_000,
  alivesPerDatagram: 1000,
  // The second stays under the core's default maxPushPullEntries (16,384), so it is merged (in slices), not refused whole.
  pushPulls: [{ entries: 100_000 }, { entries: 16_000 }],
  watchMs: 1500,
  detectLimitMs: 30_000,
  churnAgents: 3,
  pingReqPackets: 40,
  heldStreams: 16,
  heldAnnouncedBytes: 8 * MiB,
  heldSentBytes: 8 * MiB - 64 * 1024,
  slowClients: 2,
  slowStreams: 12,
  slowStreamBytes: 4 * MiB,
  sessionsFromOneIp: 200,
  joinSeeds: 3000,
};

export const FULL: AttackSizes = {
  fakeAlives: 100_000,
  alivesPerDatagram: 1000,
  // Issue 10's second push-pull: 700,000 entries in 18 MB, under the transport's 20 MiB frame cap of
  // the time. Our fake names are longer: as many as make 19 MiB.
  pushPulls: [{ entries: 100_000 }, { entries: 16_000 }, { frameBytes: 19 * MiB }],
  watchMs: 10_000,
  detectLimitMs: 90_000,
  churnAgents: 8,
  pingReqPackets: 100,
  heldStreams: 250,
  heldAnnouncedBytes: 20 * MiB - 1,
  heldSentBytes: 19 * MiB,
  slowClients: 40,
  slowStreams: 1,
  slowStreamBytes: 5_000_000,
  sessionsFromOneIp: 1000,
  joinSeeds: 3000,
};
