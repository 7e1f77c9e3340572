/**
 * `pnpm bench gateway`'s own pure parts: its flags, the placement of tabs, the agents' views summed
 * up, the events about live tabs, and the per-member rates of the report. Not a run (that takes
 * processes and minutes: see apps/bench/results/gateway).
 */
import { describe, expect, it } from 'vitest';
import { GATEWAY_DEFAULTS, parseGatewayArgs, sizeTimeoutMs } from '../src/experiments/gateway/flags.js';
import { phaseRates } from '../src/experiments/gateway/report.js';
import type { PhaseFigures, RelayCounts, TabEvent } from '../src/experiments/gateway/result.js';
import { allSeen, countByState, falseEvents, pick, relayDelta, share, tabNames, tally, type Seen } from '../src/experiments/gateway/summary.js';

describe('pnpm bench gateway flags', () => {
  it('defaults to 100, 300 and 1,000 browser members at 50/s, 30 s quiet, 4 + 4 processes, 20 Chromium pages', () => {
    expect(parseGatewayArgs(['gateway']).params).toEqual(GATEWAY_DEFAULTS);
    expect(GATEWAY_DEFAULTS).toMatchObject({ sizes: [100, 300, 1000], joinRate: 50, holdSeconds: 30, clientProcesses: 4, udpAgents: 4, chromiumTabs: 20 });
  });

  it('takes every flag', () => {
    const o = parseGatewayArgs(['gateway', '--clients', '100,300', '--join-rate', '20', '--hold-seconds=10', '--client-processes', '2', '--udp-agents', '3', '--chromium-tabs', '0', '--seed', '7', '--size-timeout', '90', '--out', 'dir', '--json', 'x.json']);
    expect(o.params).toEqual({ ...GATEWAY_DEFAULTS, sizes: [100, 300], joinRate: 20, holdSeconds: 10, clientProcesses: 2, udpAgents: 3, chromiumTabs: 0, seed: 7, sizeTimeoutSeconds: 90 });
    expect(o).toMatchObject({ out: 'dir', json: 'x.json', help: false });
  });

  it('reports every bad flag at once', () => {
    expect(() => parseGatewayArgs(['gateway', '--clients', '100,x', '--join-rate', '0', '--client-processes', '1.5'])).toThrow(/--clients: "x" is not a number; --join-rate: 0 must be at least 0.1; --client-processes: "1.5" is not a whole number/);
    expect(() => parseGatewayArgs(['gateway', 'extra'])).toThrow(/unexpected argument "extra"/);
    expect(() => parseGatewayArgs(['gateway', '--nope'])).toThrow();
  });

  it('bounds a size by its joining time, the window and 330 s for the later phases, unless told', () => {
    expect(sizeTimeoutMs(GATEWAY_DEFAULTS, 1000)).toBe((20 + 30 + 330) * 1000);
    expect(sizeTimeoutMs({ ...GATEWAY_DEFAULTS, sizeTimeoutSeconds: 90 }, 1000)).toBe(90_000);
  });
});

describe('placing and picking tabs', () => {
  it('names sort, and the same seed picks the same distinct tabs', () => {
    expect(tabNames('tab', 11)).toEqual(['tab-00', 'tab-01', 'tab-02', 'tab-03', 'tab-04', 'tab-05', 'tab-06', 'tab-07', 'tab-08', 'tab-09', 'tab-10']);
    const names = tabNames('tab', 100);
    const a = pick(names, 5, 1);
    expect(pick(names, 5, 1)).toEqual(a);
    expect(new Set(a).size).toBe(5);
    expect(pick(names, 5, 2)).not.toEqual(a);
    expect(pick(names, 200, 1)).toHaveLength(100);
  });

  it('shares round-robin, so that every process joins at the same pace', () => {
    expect(share([1, 2, 3, 4, 5], 2)).toEqual([[1, 3, 5], [2, 4]]);
  });
});

describe('what the agents saw', () => {
  const view = (entries: Record<string, Seen>) => new Map(Object.entries(entries));

  it('all seen: the time the last agent saw the last tab so', () => {
    const views = [view({ a: { state: 'alive', at: 100 }, b: { state: 'alive', at: 250 } }), view({ a: { state: 'alive', at: 300 }, b: { state: 'alive', at: 120 } })];
    expect(allSeen(views, ['a', 'b'], 'alive')).toEqual({ missing: 0, latestAt: 300, instead: {} });
  });

  it('not all seen: how many pairs are missing and what they are instead', () => {
    const views = [view({ a: { state: 'alive', at: 100 } }), view({ a: { state: 'suspect', at: 300 } })];
    expect(allSeen(views, ['a', 'b'], 'alive')).toEqual({ missing: 3, latestAt: undefined, instead: { unknown: 2, suspect: 1 } });
    expect(allSeen(views, [], 'alive').latestAt).toBeUndefined();
  });

  it('events about a tab count against it only before it was closed or cut', () => {
    const events: TabEvent[] = [
      { agent: 'udp-0', name: 'tab-1', state: 'suspect', at: 50 },
      { agent: 'udp-0', name: 'tab-1', state: 'left', at: 150 },
      { agent: 'udp-1', name: 'tab-2', state: 'dead', at: 150 },
    ];
    const live = falseEvents(events, new Map([['tab-1', 100]]));
    expect(live.map((e) => `${e.name} ${e.state}`)).toEqual(['tab-1 suspect', 'tab-2 dead']);
    expect(countByState(live)).toEqual({ suspect: 1, dead: 1, left: 0 });
  });

  it('join failures are counted by message', () => {
    expect(tally(['no welcome', 'refused', 'no welcome'])).toEqual({ 'no welcome': 2, refused: 1 });
  });
});

describe('per-member rates', () => {
  const counts = (packetsIn: number, packetsOut: number): RelayCounts => ({ packetsIn, packetsOut, packetsDropped: 0, welcomed: 0, refusedCapacity: 0, refusedIpLimit: 0, refusedSessions: 0, helloTimeouts: 0, joinTimeouts: 0, rateLimited: 0, internalErrors: 0 });

  it('a phase: gateway CPU per member per second, share of a core, datagrams and bytes per member per second, the worst client loop', () => {
    const relay = relayDelta(counts(1000, 2000), counts(3000, 6000));
    expect(relay).toMatchObject({ packetsIn: 2000, packetsOut: 4000 });
    const window = (cpuMs: number, loopP99Ms: number) => ({ seconds: 10, cpuMs, loopP99Ms, loopMaxMs: loopP99Ms, rssBytes: 0 });
    const phase: PhaseFigures = {
      gateway: window(2000, 1.5),
      relay,
      bytes: { bytesSent: 30_000, bytesReceived: 70_000 },
      agents: window(500, 1),
      agentMembers: 5,
      clients: [window(0, 3), window(0, NaN), window(0, 7)],
      members: 100,
    };
    expect(phaseRates(phase)).toEqual({
      gatewayCpuMsPerMemberSecond: 2,
      gatewayCpuShare: 0.2,
      gatewayLoopP99Ms: 1.5,
      datagramsPerMemberSecond: 6,
      bytesPerMemberSecond: 100,
      agentCpuMsPerMemberSecond: 10,
      clientLoopP99Ms: 7,
      clientsCpuShare: 0,
      agentsCpuShare: 0.05,
      packetsDropped: 0,
    });
    expect(phaseRates({ ...phase, members: 0 })?.gatewayCpuMsPerMemberSecond).toBeNaN();
  });
});
