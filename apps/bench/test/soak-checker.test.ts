/**
 * The soak invariant checker (issue 29) on hand-built timelines: each invariant held and broken.
 */
import { describe, expect, it } from 'vitest';
import { checkTimeline, GroundTruth, invariantTable, leastSquaresSlope, type CheckOptions, type NemesisAction, type Observation, type ObservationKind, type Timeline } from '../src/experiments/soak/checker/index.js';

const OPTIONS: CheckOptions = { detectionBoundMs: 10_000, graceMs: 500, convergenceBoundMs: 5_000 };
const MEMBERS = ['a', 'b', 'c'];

function obs(at: number, observer: string, subject: string, kind: ObservationKind, incarnation = 1, verdictBy?: string): Observation {
  return { at, observer, subject, kind, incarnation, ...(verdictBy === undefined ? {} : { verdictBy }) };
}

/** Every member joins every other at t = 0..5 ms. */
function joins(members = MEMBERS, at = 0): Observation[] {
  const out: Observation[] = [];
  for (const o of members) for (const s of members) if (o !== s) out.push(obs(at, o, s, 'join'));
  return out;
}

function timeline(observations: Observation[], nemesis: NemesisAction[] = [], extra: Partial<Timeline> = {}): Timeline {
  return { members: MEMBERS, start: 0, end: 100_000, observations: [...observations].sort((x, y) => x.at - y.at), nemesis, ...extra };
}

function row(t: Timeline, id: number, options = OPTIONS) {
  const report = checkTimeline(t, options);
  return { report, inv: report.invariants.find((i) => i.id === id)! };
}

describe('ground truth from the nemesis log', () => {
  const truth = new GroundTruth({
    start: 0,
    end: 100_000,
    nemesis: [
      { id: 1, kind: 'kill', targets: ['a'], start: 1_000 },
      { id: 2, kind: 'restart', targets: ['a'], start: 5_000 },
      { id: 3, kind: 'pause', targets: ['b'], start: 2_000, end: 3_000 },
      { id: 4, kind: 'partition', targets: ['a'], peers: ['c'], start: 10_000, end: 20_000 },
      { id: 5, kind: 'blackout', targets: ['c'], start: 30_000, end: 31_000 },
      { id: 6, kind: 'leave', targets: ['b'], start: 40_000 },
      { id: 7, kind: 'rejoin', targets: ['b'], start: 50_000 },
    ],
  });
  it.each([
    ['a running before the kill', truth.isRunning('a', 999), true],
    ['a down from the kill', truth.isRunning('a', 1_000), false],
    ['a up at the restart', truth.isRunning('a', 5_000), true],
    ['b paused', truth.isPaused('b', 2_500), true],
    ['b resumed at the end', truth.isPaused('b', 3_000), false],
    ['a and c partitioned', truth.reachable('a', 'c', 15_000), false],
    ['a and b on the same side... not named as peers', truth.reachable('a', 'b', 15_000), true],
    ['healed', truth.reachable('c', 'a', 20_000), true],
    ['c blacked out', truth.reachable('b', 'c', 30_500), false],
    ['b left', truth.isMember('b', 45_000), false],
    ['b rejoined', truth.isMember('b', 50_000), true],
  ])('%s', (_what, actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('invariant 1: every crash seen dead within the bound', () => {
  const kill: NemesisAction[] = [{ id: 1, kind: 'kill', targets: ['c'], start: 20_000 }];
  it.each([
    ['both survivors see it dead in time', [obs(25_000, 'a', 'c', 'dead', 1, 'a'), obs(27_000, 'b', 'c', 'dead', 1, 'a')], 2, 0, 2],
    ['b never sees it', [obs(25_000, 'a', 'c', 'dead', 1, 'a')], 2, 1, 1],
    ['b sees it only after the bound', [obs(25_000, 'a', 'c', 'dead', 1, 'a'), obs(31_000, 'b', 'c', 'dead', 1, 'a')], 2, 1, 1],
    ['left counts as seen', [obs(21_000, 'a', 'c', 'left'), obs(21_000, 'b', 'c', 'left')], 2, 0, 2],
    ['already held dead at the kill', [obs(5_000, 'a', 'c', 'dead', 1, 'a'), obs(5_000, 'b', 'c', 'dead', 1, 'a')], 2, 0, 2],
  ])('%s', (_what, seen, checked, violations, detections) => {
    const { report, inv } = row(timeline([...joins(), ...seen], kill), 1);
    expect(inv).toMatchObject({ checked, violations });
    if (violations > 0) expect(inv.firstViolation).toMatch(/c killed at 20\.0 s.*b did not see it dead/);
    expect(report.detection.latencyMs.count).toBe(detections);
  });

  it('is not required of a crash restarted before the bound, nor of a paused observer', () => {
    const { report, inv } = row(timeline(joins(), [...kill, { id: 2, kind: 'restart', targets: ['c'], start: 25_000 }]), 1);
    expect(inv).toMatchObject({ checked: 0, violations: 0 });
    expect(report.detection.notRequired).toBe(2);
    const paused = row(timeline([...joins(), obs(25_000, 'a', 'c', 'dead', 1, 'a')], [...kill, { id: 3, kind: 'pause', targets: ['b'], start: 21_000, end: 22_000 }]), 1);
    expect(paused.inv).toMatchObject({ checked: 1, violations: 0 });
  });

  it('reports latency percentiles', () => {
    const { report } = row(timeline([...joins(), obs(24_000, 'a', 'c', 'dead', 1, 'a'), obs(28_000, 'b', 'c', 'dead', 1, 'a')], kill), 1);
    expect(report.detection.latencyMs).toEqual({ count: 2, p50: 4_000, p90: 8_000, p99: 8_000, max: 8_000 });
  });
});

describe('invariant 2: no false death verdicts', () => {
  const partition: NemesisAction = { id: 1, kind: 'partition', targets: ['a'], start: 10_000, end: 40_000 };
  it.each<[string, Observation[], NemesisAction[], number, string | null]>([
    ['a verdict during the partition is excused', [obs(30_000, 'b', 'a', 'dead', 1, 'b')], [partition], 0, null],
    ['a verdict 200 ms after the heal is within the grace', [obs(40_200, 'b', 'a', 'dead', 1, 'b')], [partition], 0, null],
    ['a verdict 5 s after the heal is false', [obs(45_000, 'b', 'a', 'dead', 1, 'b'), obs(45_100, 'c', 'a', 'dead', 1, 'b')], [partition], 1, 'after partition heal'],
    ['a verdict with no fault at all', [obs(45_000, 'b', 'a', 'dead', 1, 'b')], [], 1, 'none'],
    ['a verdict while the subject is paused is excused', [obs(45_000, 'b', 'a', 'dead', 1, 'b')], [{ id: 2, kind: 'pause', targets: ['a'], start: 30_000, end: 50_000 }], 0, null],
    ['a verdict after the subject resumed', [obs(52_000, 'b', 'a', 'dead', 1, 'b')], [{ id: 2, kind: 'pause', targets: ['a'], start: 30_000, end: 50_000 }], 1, 'after pause (subject)'],
    ['a verdict by the paused declarer right after resuming is excused', [obs(50_100, 'b', 'a', 'dead', 1, 'b')], [{ id: 2, kind: 'pause', targets: ['b'], start: 30_000, end: 50_000 }], 0, null],
    ['a verdict about a killed member is true', [obs(45_000, 'b', 'a', 'dead', 1, 'b')], [{ id: 3, kind: 'kill', targets: ['a'], start: 30_000 }], 0, null],
    ['gossip of a dead (not a verdict) is not counted', [obs(45_000, 'c', 'a', 'dead', 1, 'b')], [], 0, null],
  ])('%s', (_what, seen, nemesis, violations, cause) => {
    const { report, inv } = row(timeline([...joins(), ...seen], nemesis), 2);
    expect(inv.violations).toBe(violations);
    if (cause !== null) {
      expect(report.falseDeaths.falseVerdicts[0]).toMatchObject({ declarer: 'b', subject: 'a', cause });
      expect(inv.firstViolation).toMatch(/b declared a dead/);
    }
  });

  it('counts how many observers a false verdict reached and how long after the heal it came', () => {
    const seen = [obs(45_000, 'b', 'a', 'dead', 1, 'b'), obs(45_100, 'c', 'a', 'dead', 1, 'b'), obs(45_200, 'c', 'a', 'dead', 2, 'b')];
    const { report } = row(timeline([...joins(), ...seen], [partition]), 2);
    expect(report.falseDeaths.falseVerdicts).toEqual([{ at: 45_000, declarer: 'b', subject: 'a', incarnation: 1, reached: 1, cause: 'after partition heal', sinceFaultMs: 5_000 }]);
    expect(report.falseDeaths.byCause).toEqual([{ cause: 'after partition heal', count: 1, sinceFaultMs: { count: 1, p50: 5_000, p90: 5_000, p99: 5_000, max: 5_000 }, reached: { count: 1, p50: 1, p90: 1, p99: 1, max: 1 } }]);
  });

  it('sets apart verdicts about a member killed shortly before (its previous process)', () => {
    const { report, inv } = row(timeline([...joins(), obs(12_000, 'b', 'a', 'dead', 1, 'b')], [{ id: 1, kind: 'kill', targets: ['a'], start: 5_000 }, { id: 2, kind: 'restart', targets: ['a'], start: 8_000 }]), 2);
    expect(inv.violations).toBe(0);
    expect(report.falseDeaths.previousLife).toBe(1);
  });
});

describe('invariant 3: convergence after heals and restarts', () => {
  const partition: NemesisAction = { id: 1, kind: 'partition', targets: ['a'], start: 10_000, end: 20_000 };
  const during = [obs(12_000, 'b', 'a', 'suspect'), obs(12_000, 'c', 'a', 'suspect'), obs(12_000, 'a', 'b', 'suspect'), obs(12_000, 'a', 'c', 'suspect')];
  it.each<[string, Observation[], number | null, number]>([
    ['all alive 3 s after the heal', [obs(21_000, 'b', 'a', 'alive'), obs(22_000, 'c', 'a', 'alive'), obs(23_000, 'a', 'b', 'alive'), obs(23_000, 'a', 'c', 'alive')], 3_000, 0],
    ['one pair alive only 8 s after the heal', [obs(21_000, 'b', 'a', 'alive'), obs(22_000, 'c', 'a', 'alive'), obs(23_000, 'a', 'b', 'alive'), obs(28_000, 'a', 'c', 'alive')], 8_000, 1],
    ['one pair never alive again', [obs(21_000, 'b', 'a', 'alive'), obs(22_000, 'c', 'a', 'alive'), obs(23_000, 'a', 'b', 'alive')], null, 1],
  ])('%s', (_what, after, latency, violations) => {
    const { report, inv } = row(timeline([...joins(), ...during, ...after], [partition]), 3);
    expect(inv.violations).toBe(violations);
    expect(report.convergence.triggers).toHaveLength(1);
    expect(report.convergence.triggers[0]!.latencyMs).toBe(latency);
    if (violations > 0) expect(inv.firstViolation).toMatch(/after partition heal .* at 20\.0 s/);
    // The pairs still apart at the bound are named.
    if (latency === null) expect(inv.firstViolation).toMatch(/1 pairs not converged at the bound, e\.g\. a did not see c alive/);
  });

  it('a restarted process must see everyone again (it starts knowing no one), a killed member is not waited for', () => {
    const nemesis: NemesisAction[] = [
      { id: 1, kind: 'kill', targets: ['c'], start: 10_000 },
      { id: 2, kind: 'restart', targets: ['c'], start: 15_000 },
    ];
    const late = [obs(15_500, 'c', 'a', 'join', 1), obs(16_000, 'a', 'c', 'alive', 1)];
    const { report, inv } = row(timeline([...joins(), ...late], nemesis), 3);
    // b still holds c alive from before; c never hears of b: not converged.
    expect(report.convergence.triggers[0]!.latencyMs).toBeNull();
    expect(inv.violations).toBe(1);
    const { report: ok } = row(timeline([...joins(), ...late, obs(17_000, 'c', 'b', 'join', 1)], nemesis), 3);
    expect(ok.convergence.triggers[0]!.latencyMs).toBe(2_000);
  });

  it('a trigger during another disruption is measured from that one’s end; a short window is censored', () => {
    const nemesis: NemesisAction[] = [partition, { id: 2, kind: 'pause', targets: ['b'], start: 18_000, end: 30_000 }, { id: 3, kind: 'blackout', targets: ['c'], start: 32_000, end: 33_000 }];
    const { report, inv } = row(timeline([...joins(), ...during], nemesis), 3);
    expect(report.convergence.superseded).toBe(1);
    // the pause's end at 30 s: window until 32 s (shorter than the bound) → censored; the blackout's end: not converged, a violation.
    expect(report.convergence.censored).toBe(1);
    expect(inv).toMatchObject({ checked: 1, violations: 1 });
  });
});

describe('invariant 4: exits and exceptions (agents)', () => {
  it.each([
    ['not applicable without exits', {}, false, 0],
    ['expected exits pass', { exits: [{ at: 1, member: 'a', expected: true, signal: 'SIGKILL' }] }, true, 0],
    ['an unexpected exit fails', { exits: [{ at: 1, member: 'a', expected: false, code: 1 }] }, true, 1],
    ['a contained exception fails', { exits: [], exceptions: [{ at: 5, member: 'b', message: 'boom' }] }, true, 1],
  ])('%s', (_what, extra, applicable, violations) => {
    const { inv } = row(timeline(joins(), [], extra as Partial<Timeline>), 4);
    expect(inv).toMatchObject({ applicable, violations });
  });
});

describe('invariant 5: resource slopes', () => {
  const MiB = 1024 * 1024;
  // A level, a trend and alternating noise of 10 % of the level.
  const hourly = (member: string, perHour: number, metric: 'rss' | 'fds' = 'rss', level = metric === 'rss' ? 100 * MiB : 40) =>
    Array.from({ length: 13 }, (_, h) => ({ at: h * 3_600_000, member, [metric]: level + perHour * h + (h % 2) * 0.1 * level }));
  it('least squares', () => {
    expect(leastSquaresSlope([[0, 1], [1, 3], [2, 5]])).toBeCloseTo(2);
    expect(leastSquaresSlope([[0, 1]])).toBeNaN();
  });
  it.each([
    ['flat RSS passes', hourly('a', 0), 0],
    ['1 MiB/h passes', hourly('a', 1 * MiB), 0],
    ['3 MiB/h fails', hourly('a', 3 * MiB), 1],
    ['a leaking fd per hour fails', hourly('b', 1, 'fds'), 1],
  ])('%s', (_what, samples, violations) => {
    const { report, inv } = row(timeline(joins(), [], { end: 12 * 3_600_000, samples }), 5);
    expect(inv.violations).toBe(violations);
    expect(report.slopes).toHaveLength(1);
  });
  it('ignores the first quarter (warm-up)', () => {
    const samples = Array.from({ length: 13 }, (_, h) => ({ at: h * 3_600_000, member: 'a', heapUsed: h < 3 ? h * 50 * MiB : 150 * MiB }));
    expect(row(timeline(joins(), [], { end: 12 * 3_600_000, samples }), 5).inv.violations).toBe(0);
  });
});

describe('invariant 6: event sequences', () => {
  it.each<[string, Observation[], NemesisAction[], string | null]>([
    ['join, suspect, dead, alive at a higher incarnation', [obs(1, 'a', 'b', 'join'), obs(2, 'a', 'b', 'suspect'), obs(3, 'a', 'b', 'dead', 1, 'a'), obs(4, 'a', 'b', 'alive', 2)], [], null],
    ['first event a suspect', [obs(1, 'a', 'b', 'suspect')], [], 'first event not a join'],
    ['dead twice', [obs(1, 'a', 'b', 'join'), obs(3, 'a', 'b', 'dead', 1, 'a'), obs(4, 'a', 'b', 'suspect', 1), obs(5, 'a', 'b', 'dead', 2, 'c')], [], 'dead twice'],
    ['incarnation decreases while alive', [obs(1, 'a', 'b', 'join', 5), obs(2, 'a', 'b', 'update', 4)], [], 'incarnation decreased'],
    ['a new life after dead: join at a lower incarnation', [obs(1, 'a', 'b', 'join', 5), obs(2, 'a', 'b', 'dead', 5, 'a'), obs(3, 'a', 'b', 'join', 1)], [], null],
    ['a restarted observer starts over with a join', [obs(1, 'a', 'b', 'join', 5), obs(3, 'a', 'b', 'join', 5)], [{ id: 1, kind: 'kill', targets: ['a'], start: 2 }, { id: 2, kind: 'restart', targets: ['a'], start: 2 }], null],
    ['a restarted observer must start with a join', [obs(1, 'a', 'b', 'join', 5), obs(3, 'a', 'b', 'alive', 5)], [{ id: 1, kind: 'kill', targets: ['a'], start: 2 }, { id: 2, kind: 'restart', targets: ['a'], start: 2 }], 'first event not a join'],
    ['unless restored from a snapshot', [obs(1, 'a', 'b', 'join', 5), obs(3, 'a', 'b', 'suspect', 5)], [{ id: 1, kind: 'kill', targets: ['a'], start: 2 }, { id: 2, kind: 'restart', targets: ['a'], start: 2, preloaded: true }], null],
  ])('%s', (_what, seen, nemesis, rule) => {
    const { report, inv } = row(timeline(seen, nemesis, { members: ['a', 'b'] }), 6);
    expect(inv.violations).toBe(rule === null ? 0 : 1);
    if (rule !== null) expect(report.sequenceViolationsByRule[rule]).toBe(1);
  });
});

describe('hostile input', () => {
  it('drops malformed observations (counted) and sorts unsorted ones', () => {
    const bad = [obs(Number.NaN, 'a', 'b', 'join'), { ...obs(1, 'a', 'b', 'join'), kind: 'exploded' as ObservationKind }, obs(1, '', 'b', 'join')];
    const report = checkTimeline(timeline([]), OPTIONS);
    expect(report.malformed).toBe(0);
    const t: Timeline = { members: ['a', 'b'], start: 0, end: 10, nemesis: [], observations: [obs(2, 'a', 'b', 'alive'), obs(1, 'a', 'b', 'join'), ...bad] };
    const checked = checkTimeline(t, OPTIONS);
    expect(checked.malformed).toBe(3);
    expect(checked.invariants.find((i) => i.id === 6)!.violations).toBe(0);
    expect(invariantTable(checked)).toMatch(/\| 6 \| event sequences valid/);
  });
});
