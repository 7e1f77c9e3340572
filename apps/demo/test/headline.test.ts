/**
 * The headline run's engine, as fast as the machine goes: 24 members a side, the same 6 blacked
 * out for 30 s. memberlist's side kills healthy members after reconnection, ours kills none, and
 * the false deaths are reported while the run goes, not only at its end.
 */
import { expect, it } from 'vitest';
import { HeadlineRun, headlineConfig, pickCut } from '../src/headline.js';
import { parseHeadlineParams } from '../src/headline-api.js';

const SEED = 1;

it('24 members, 6 blacked out for 30 s: memberlist kills healthy members, @swim none', { timeout: 120_000 }, async () => {
  // Phase of the run when each side's first false death was reported.
  const firstSeen: Record<string, string> = {};
  const run = new HeadlineRun({
    members: 24,
    cut: 6,
    outageS: 30,
    watchS: 30,
    seed: SEED,
    speed: 0,
    onStep: (r) => {
      for (const side of ['memberlist', 'swim'] as const) if (r.falseDeaths(side) > 0) firstSeen[side] ??= r.phase;
    },
  }).start();
  await run.done;
  const status = run.status();
  expect(status.phase, status.error).toBe('done');
  const [memberlist, swim] = status.sides;
  const tell = (side: typeof memberlist) => `${side!.side}, seed ${SEED}, cut ${status.cut.join(' ')}: ${side!.falseDeaths} false deaths ${JSON.stringify(side!.events.slice(0, 5))}`;
  expect(memberlist!.side).toBe('memberlist');
  expect(memberlist!.falseDeaths, tell(memberlist)).toBeGreaterThan(0);
  expect(swim!.falseDeaths, tell(swim)).toBe(0);
  // Counted as they happen: seen mid-run, after the reconnection, by the victims' healthy peers.
  expect(firstSeen['memberlist'], tell(memberlist)).toBe('reconnected');
  expect(memberlist!.events.every((e) => e.sinceCutMs >= 30_000 && !status.cut.includes(e.observer) && !status.cut.includes(e.subject))).toBe(true);
  // Every observer's row covers every member, with one state letter each.
  for (const side of status.sides) {
    expect(side.rows).toHaveLength(24);
    for (const row of side.rows) expect(row.states).toMatch(/^[asdl-]{24}$/);
  }
  // The timeline: one sample per virtual second from the start, the false deaths counted so far in each.
  for (const side of status.sides) {
    const times = side.history.map((s) => s.atMs);
    expect(times, side.side).toEqual(times.map((_, i) => i * 1000));
    expect(times.at(-1)).toBeGreaterThanOrEqual(status.virtualMs - 1000);
    const totals = side.history.map((s) => s.falseDeaths);
    expect(totals.every((t, i) => i === 0 || t >= totals[i - 1]!), `${side.side}: false deaths so far never decrease`).toBe(true);
    expect(totals.at(-1), side.side).toBe(side.falseDeaths);
    // 24 observers × 23 others, each pair in one state once converged.
    const last = side.history.at(-1)!;
    expect(last.alive + last.suspect + last.dead + last.left, side.side).toBe(24 * 23);
  }
  // During the outage the cut members' peers hold them suspect or dead on both sides.
  const midOutage = (side: (typeof status.sides)[number]) => side.history.find((s) => s.atMs - (status.virtualMs - status.sinceCutMs!) >= 25_000)!;
  for (const side of status.sides) expect(midOutage(side).suspect + midOutage(side).dead, side.side).toBeGreaterThan(0);
});

it('paced: virtual time never runs ahead of real time times the speed factor', { timeout: 60_000 }, async () => {
  let pacedFrom: { wall: number; virtual: number } | undefined;
  const run = new HeadlineRun({
    members: 8,
    cut: 2,
    outageS: 5,
    watchS: 10,
    seed: SEED,
    speed: 20,
    onStep: (r) => {
      if (r.phase !== 'converging') pacedFrom ??= { wall: performance.now(), virtual: r.status().virtualMs };
    },
  }).start();
  await run.done;
  const wallMs = performance.now() - pacedFrom!.wall;
  const virtualMs = run.status().virtualMs - pacedFrom!.virtual;
  // 3 s steady + 5 s outage + 10 s watch, less the first step already taken when pacedFrom was read.
  expect(virtualMs).toBeGreaterThanOrEqual(17_900);
  expect(wallMs * 20 + 100, `${virtualMs} virtual ms in ${wallMs.toFixed(0)} wall ms at 20x`).toBeGreaterThanOrEqual(virtualMs);
});

it('both sides cut the same members; only the two corrections differ between them', () => {
  expect(pickCut(7, 24, 6)).toEqual(pickCut(7, 24, 6));
  expect(new Set(pickCut(7, 24, 6)).size).toBe(6);
  const ml = headlineConfig('memberlist');
  const ours = headlineConfig('swim');
  expect([ml.overdueGraceMs, ml.healthScaling]).toEqual([0, 'off']);
  expect([ours.overdueGraceMs, ours.healthScaling]).toEqual([2000, 'at-expiry']);
  expect(ml.suspicionMult).toBe(ours.suspicionMult);
});

it('parameters out of bounds are all listed', () => {
  const parsed = parseHeadlineParams({ members: 65, cut: 0, outageS: 4, speed: -1, colour: 'red' });
  expect('problems' in parsed && parsed.problems).toHaveLength(5);
  expect(parseHeadlineParams({ members: 24, cut: 13 })).toHaveProperty('problems');
  expect(parseHeadlineParams({ outageS: 121 })).toHaveProperty('problems');
  expect(parseHeadlineParams({ outageS: 30.5 })).toHaveProperty('problems');
  expect(parseHeadlineParams([])).toHaveProperty('problems');
  expect(parseHeadlineParams(undefined)).toEqual({ params: { members: 24, cut: 6, outageS: 30, watchS: 30, seed: 1, speed: 1 } });
});
