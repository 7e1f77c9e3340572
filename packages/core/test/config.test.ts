import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  memberlistProfile,
  presets,
  resolveConfig,
  validateConfig,
  type SwimConfig,
} from '../src/config/index.js';

/** Our own fields, the same on every preset (docs/design.md). */
const OURS = {
  overdueGraceMs: 2000,
  healthScaling: 'at-expiry',
  healthPenaltyOrder: 'before-suspicion',
  nackTimeoutRatio: 0.8,
  fallbackStreamPing: true,
  requestNacks: true,
  buddySystem: true,
  directRefutation: true,
  // Restarts (docs/restarts.md): the two direct answers on, memberlist PR #345's gossip rules off.
  answerStaleAlive: true,
  answerAccusedPingers: true,
  regossipStaleAccusation: false,
  relayUnknownAccusations: false,
  // Adaptive probe timeouts: off on every preset (apps/bench/results/adaptive.md).
  probeTimeoutMode: 'fixed',
  adaptiveTimeoutFloorMs: 100,
  adaptiveTimeoutPhi: 4,
  adaptiveTimeoutWindow: 32,
  adaptiveTimeoutMinSamples: 5,
  adaptiveTimeoutMinStdDevMs: 20,
  // Serf DisableCoordinates false: Vivaldi coordinates on direct acks.
  coordinates: true,
  // Serf ReconnectInterval / ReconnectTimeout (memberlist alone has no reconnect).
  reconnectIntervalMs: 30_000,
  // Ours (docs/endurance.md): a member declared dead push-pulls with its declarer.
  pushPullWithDeclarer: true,
  reconnectTimeoutMs: 86_400_000,
  refutationQueueKey: 'name',
  // Bounds against hostile peers (docs/memberlist-differences.md); memberlist has none.
  maxMembers: 16_384,
  maxNewMembersPerSource: 64,
  maxPushPullEntries: 16_384,
  maxConcurrentPushPulls: 128, // memberlist maxPushPullRequests
  mergeSliceEntries: 512,
  maxIncarnationJump: 65_536,
  leftNameReclaimMs: 30_000,
} as const;

/** memberlist DefaultLANConfig (config.go), field by field. */
const LAN: SwimConfig = {
  probeIntervalMs: 1000, // ProbeInterval 1 s
  probeTimeoutMs: 500, // ProbeTimeout 500 ms
  adaptiveTimeoutCeilingMs: 500, // ours: = probeTimeoutMs, so an adaptive wait only shortens it
  indirectChecks: 3, // IndirectChecks
  suspicionMult: 4, // SuspicionMult
  suspicionMaxTimeoutMult: 6, // SuspicionMaxTimeoutMult
  awarenessMaxMultiplier: 8, // AwarenessMaxMultiplier
  retransmitMult: 4, // RetransmitMult
  gossipIntervalMs: 200, // GossipInterval
  gossipNodes: 3, // GossipNodes
  gossipToTheDeadMs: 30_000, // GossipToTheDeadTime
  pushPullIntervalMs: 30_000, // PushPullInterval
  streamTimeoutMs: 10_000, // TCPTimeout
  metaMaxBytes: 512, // MetaMaxSize
  maxPacketBytes: 1400, // UDPBufferSize
  deadNodeReclaimMs: 0, // DeadNodeReclaimTime unset
  lateTickMs: 1000, // ours: one probe interval (lifeguard/late-tick.ts); memberlist has no such rule
  ...OURS,
};

/** memberlist DefaultWANConfig (config.go). */
const WAN: SwimConfig = {
  ...LAN,
  streamTimeoutMs: 30_000,
  suspicionMult: 6,
  pushPullIntervalMs: 60_000,
  probeTimeoutMs: 3000,
  adaptiveTimeoutCeilingMs: 3000,
  probeIntervalMs: 5000,
  lateTickMs: 5000, // ours: one probe interval
  gossipNodes: 4,
  gossipIntervalMs: 500,
  gossipToTheDeadMs: 60_000,
};

/** memberlist DefaultLocalConfig (config.go). */
const LOCAL: SwimConfig = {
  ...LAN,
  streamTimeoutMs: 1000,
  indirectChecks: 1,
  retransmitMult: 2,
  suspicionMult: 3,
  pushPullIntervalMs: 15_000,
  probeTimeoutMs: 200,
  adaptiveTimeoutCeilingMs: 200,
  probeIntervalMs: 1000,
  gossipIntervalMs: 100,
  gossipToTheDeadMs: 15_000,
};

describe('presets (memberlist config.go)', () => {
  it.each([
    ['lan', presets.lan, LAN],
    ['wan', presets.wan, WAN],
    ['local', presets.local, LOCAL],
  ] as const)('%s matches memberlist field by field', (_name, make, expected) => {
    const config = make();
    expect(Object.keys(config).sort()).toEqual(Object.keys(expected).sort());
    for (const key of Object.keys(expected) as (keyof SwimConfig)[]) {
      expect({ [key]: config[key] }).toEqual({ [key]: expected[key] });
    }
  });

  it('every preset is valid', () => {
    for (const make of [presets.lan, presets.wan, presets.local]) {
      expect(validateConfig(make())).toEqual([]);
      expect(validateConfig(memberlistProfile(make()))).toEqual([]);
    }
  });

  it('returns fresh frozen objects', () => {
    const a = presets.lan();
    expect(a).not.toBe(presets.lan());
    expect(Object.isFrozen(a)).toBe(true);
  });
});

describe('memberlistProfile', () => {
  it('turns both corrections off and keeps memberlist orderings', () => {
    const base = presets.wan();
    const profile = memberlistProfile(base);
    expect(profile).toEqual({
      ...base,
      overdueGraceMs: 0,
      lateTickMs: 0, // memberlist judges whenever its timers fire, however late
      healthScaling: 'off',
      healthPenaltyOrder: 'after-suspicion',
      nackTimeoutRatio: 1,
      directRefutation: false,
      probeTimeoutMode: 'fixed',
      reconnectIntervalMs: 0,
      pushPullWithDeclarer: false, // memberlist refute only gossips the alive
      refutationQueueKey: 'address', // memberlist refute queues under our address
      answerStaleAlive: false, // memberlist aliveNode drops a stale alive
      answerAccusedPingers: false, // memberlist handlePing only acks
      regossipStaleAccusation: false,
      relayUnknownAccusations: false,
    });
    expect(base.overdueGraceMs).toBe(2000); // the base is untouched
    // memberlist's ProbeTimeout is fixed, whatever the base says.
    expect(memberlistProfile({ ...base, probeTimeoutMode: 'adaptive' }).probeTimeoutMode).toBe('fixed');
    expect(profile.fallbackStreamPing).toBe(true); // memberlist does TCP fallback pings by default
  });
});

describe('validateConfig', () => {
  it('returns [] for a valid config', () => {
    expect(validateConfig({ ...presets.lan(), probeIntervalMs: 250, probeTimeoutMs: 100, healthScaling: 'at-creation' })).toEqual([]);
  });

  it('returns every problem at once, one per field', () => {
    const bad = {
      ...presets.lan(),
      probeIntervalMs: 0,
      indirectChecks: 2.5,
      nackTimeoutRatio: 1.5,
      suspicionMult: Number.NaN,
      healthScaling: 'sometimes',
      maxPacketBytes: 70_000,
      streamTimeoutMs: -1,
      fallbackStreamPing: 'yes',
      gossipNodes: -1,
    } as unknown as SwimConfig;
    const problems = validateConfig(bad);
    expect(problems).toEqual([
      'probeIntervalMs must be a finite number > 0, got 0',
      'indirectChecks must be an integer >= 0, got 2.5',
      'nackTimeoutRatio must be a finite number in (0, 1], got 1.5 (a helper must nack before the prober stops waiting; 0.8 is Lifeguard §IV.A, 1 is memberlist)',
      'fallbackStreamPing must be a boolean, got "yes"',
      'suspicionMult must be an integer >= 1, got NaN',
      "healthScaling must be one of 'off', 'at-creation', 'at-expiry', got \"sometimes\"",
      'gossipNodes must be an integer >= 0, got -1',
      'maxPacketBytes must be an integer in [1171, 65507], got 70000 (65507 is the largest UDP payload; below 1171 a ping-req, a ping with its suspect, or an alive with 512 bytes of meta at the longest name and address, moving from the longest address, does not fit)',
      'streamTimeoutMs must be a finite number > 0, got -1',
    ]);
    expect(problems).toHaveLength(9);
  });

  it('checks the Lifeguard component switches are booleans (bench-only knobs)', () => {
    const bad = { ...presets.lan(), requestNacks: 1, buddySystem: 'off' } as unknown as SwimConfig;
    expect(validateConfig(bad)).toEqual(['requestNacks must be a boolean, got 1', 'buddySystem must be a boolean, got "off"']);
    expect(memberlistProfile(presets.lan())).toMatchObject({ requestNacks: true, buddySystem: true }); // memberlist always does both
  });

  it('checks the restart rules are booleans, listing every bad one', () => {
    const bad = { ...presets.lan(), answerStaleAlive: 'yes', answerAccusedPingers: 0, regossipStaleAccusation: null, relayUnknownAccusations: undefined } as unknown as SwimConfig;
    expect(validateConfig(bad)).toEqual([
      'answerStaleAlive must be a boolean, got "yes"',
      'regossipStaleAccusation must be a boolean, got null',
      'relayUnknownAccusations must be a boolean, got undefined',
      'answerAccusedPingers must be a boolean, got 0',
    ]);
  });

  it('checks probeTimeoutMs < probeIntervalMs, and says why', () => {
    expect(validateConfig({ ...presets.lan(), probeTimeoutMs: 1000 })).toEqual([
      'probeTimeoutMs must be less than probeIntervalMs (1000), got 1000 (a probe waits probeTimeoutMs for a direct ack, then must leave time for indirect probes before the interval ends: memberlist probeNode)',
    ]);
  });

  it('checks the adaptive probe timeout fields in every mode, and how they relate only in adaptive mode', () => {
    const lan = presets.lan();
    expect(validateConfig({ ...lan, probeTimeoutMode: 'adaptive' })).toEqual([]);
    expect(
      validateConfig({
        ...lan,
        probeTimeoutMode: 'sometimes' as 'fixed',
        adaptiveTimeoutFloorMs: 0,
        adaptiveTimeoutCeilingMs: Number.NaN,
        adaptiveTimeoutPhi: 0.5,
        adaptiveTimeoutWindow: 1,
        adaptiveTimeoutMinSamples: 2.5,
        adaptiveTimeoutMinStdDevMs: -1,
      }),
    ).toEqual([
      "probeTimeoutMode must be one of 'fixed', 'adaptive', got \"sometimes\"",
      'adaptiveTimeoutFloorMs must be a finite number > 0, got 0',
      'adaptiveTimeoutCeilingMs must be a finite number > 0, got NaN',
      'adaptiveTimeoutPhi must be a finite number in [1, 20], got 0.5 (phi = -log10 P(RTT > wait) under a normal model of the RTTs: 1 waits for about the 90th percentile, 4 for mean + 3.7 standard deviations)',
      'adaptiveTimeoutWindow must be an integer in [2, 1024], got 1 (RTTs kept per member)',
      'adaptiveTimeoutMinSamples must be an integer >= 1, got 2.5',
      'adaptiveTimeoutMinStdDevMs must be a finite number >= 0, got -1',
    ]);
    const tangled = { ...lan, adaptiveTimeoutCeilingMs: 1000, adaptiveTimeoutFloorMs: 1200, adaptiveTimeoutWindow: 4, adaptiveTimeoutMinSamples: 5 };
    // In fixed mode the adaptive block is inert, so a short probe interval alone is fine.
    expect(validateConfig(tangled)).toEqual([]);
    expect(validateConfig({ ...lan, probeIntervalMs: 200, probeTimeoutMs: 100 })).toEqual([]);
    expect(validateConfig({ ...tangled, probeTimeoutMode: 'adaptive' })).toEqual([
      'adaptiveTimeoutCeilingMs must be less than probeIntervalMs (1000), got 1000 (the adaptive wait for a direct ack must leave time for indirect probes before the interval ends, as probeTimeoutMs)',
      'adaptiveTimeoutFloorMs must be at most adaptiveTimeoutCeilingMs (1000), got 1200',
      'adaptiveTimeoutMinSamples must be at most adaptiveTimeoutWindow (4), got 5 (otherwise no member ever has enough RTTs, and every probe waits probeTimeoutMs)',
    ]);
    // A cross-field rule is skipped when one of its fields is already wrong.
    expect(validateConfig({ ...lan, probeTimeoutMode: 'adaptive', adaptiveTimeoutCeilingMs: -1, adaptiveTimeoutFloorMs: 100 })).toEqual([
      'adaptiveTimeoutCeilingMs must be a finite number > 0, got -1',
    ]);
    expect(() => resolveConfig({ probeTimeoutMode: 'adaptive', probeIntervalMs: 400 })).toThrow('adaptiveTimeoutCeilingMs must be less than probeIntervalMs (400), got 500');
    expect(resolveConfig({ probeTimeoutMode: 'adaptive' }, 'wan').adaptiveTimeoutCeilingMs).toBe(3000);
  });

  it('checks that metadata fits in a packet', () => {
    // An alive with the longest name (128 B) and address (255 B), its range and the longest
    // address it moved from (255 B) takes 659 B besides its metadata.
    expect(validateConfig({ ...presets.lan(), maxPacketBytes: 1300, metaMaxBytes: 700 })).toEqual([
      'metaMaxBytes must be at most maxPacketBytes - 659 = 641, got 700 (an alive message carrying the metadata must fit in one packet)',
    ]);
    expect(validateConfig({ ...presets.lan(), maxPacketBytes: 1300, metaMaxBytes: 641 })).toEqual([]);
  });

  it('skips a cross-field rule when one of its fields is already wrong', () => {
    expect(validateConfig({ ...presets.lan(), probeIntervalMs: -5, probeTimeoutMs: 500 })).toEqual([
      'probeIntervalMs must be a finite number > 0, got -5',
    ]);
  });

  it('reports missing fields, other bounds and non-object input', () => {
    const { gossipToTheDeadMs: _dropped, ...rest } = presets.lan();
    expect(validateConfig(rest as SwimConfig)).toEqual(['gossipToTheDeadMs must be a finite number >= 0, got undefined']);
    expect(
      validateConfig({
        ...presets.lan(),
        suspicionMaxTimeoutMult: 0,
        awarenessMaxMultiplier: 0,
        retransmitMult: 0,
        overdueGraceMs: -1,
        gossipIntervalMs: Number.POSITIVE_INFINITY,
        pushPullIntervalMs: -1,
        deadNodeReclaimMs: -1,
        metaMaxBytes: -1,
        maxPacketBytes: 511,
        healthPenaltyOrder: 'later' as 'after-suspicion',
      }),
    ).toHaveLength(10);
    expect(validateConfig(null as unknown as SwimConfig)).toEqual(['config must be an object, got null']);
  });
});

describe('resolveConfig', () => {
  it('defaults to the LAN preset', () => {
    expect(resolveConfig()).toEqual(LAN);
    expect(resolveConfig({}, 'wan')).toEqual(WAN);
    expect(resolveConfig(undefined, 'local')).toEqual(LOCAL);
  });

  it('applies valid overrides on top of the preset and returns a frozen config', () => {
    const config = resolveConfig({ probeIntervalMs: 4000, gossipNodes: 5, healthScaling: 'off' }, 'wan');
    expect(config).toEqual({ ...WAN, probeIntervalMs: 4000, gossipNodes: 5, healthScaling: 'off' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('ignores overrides whose value is undefined', () => {
    const overrides = { probeIntervalMs: undefined } as unknown as Partial<SwimConfig>;
    expect(resolveConfig(overrides)).toEqual(LAN);
  });

  it('throws a ConfigError listing every problem, unknown keys included', () => {
    const overrides = { probeIntervalMS: 2000, probeTimeoutMs: 0, indirectChecks: -1 } as Partial<SwimConfig>;
    let error: unknown;
    try {
      resolveConfig(overrides);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message, name } = error as ConfigError;
    expect(name).toBe('ConfigError');
    expect(problems).toEqual([
      `unknown option "probeIntervalMS" (did you mean 'probeIntervalMs'?)`,
      'probeTimeoutMs must be a finite number > 0, got 0',
      'indirectChecks must be an integer >= 0, got -1',
    ]);
    expect(message.split('\n')).toEqual(['Invalid SWIM config (3 problems):', ...problems.map((p) => `- ${p}`)]);
  });

  it('rejects an unknown key even when everything else is valid', () => {
    expect(() => resolveConfig({ colour: 'blue' } as Partial<SwimConfig>)).toThrow(
      new ConfigError(['unknown option "colour"']),
    );
  });

  it('rejects non-object overrides and unknown presets', () => {
    for (const bad of [null, 42, 'lan', [1, 2]]) {
      expect(() => resolveConfig(bad as unknown as Partial<SwimConfig>)).toThrow(ConfigError);
    }
    expect(() => resolveConfig(null as unknown as Partial<SwimConfig>)).toThrow('overrides must be an object, got null');
    expect(() => resolveConfig({}, 'moon' as 'lan')).toThrow(
      "preset must be one of 'lan', 'wan', 'local', got \"moon\"",
    );
  });

  it('rejects a JSON __proto__ key as unknown rather than polluting anything', () => {
    const overrides = JSON.parse('{"__proto__": {"probeIntervalMs": 1}}') as Partial<SwimConfig>;
    expect(() => resolveConfig(overrides)).toThrow('unknown option "__proto__"');
  });
});
