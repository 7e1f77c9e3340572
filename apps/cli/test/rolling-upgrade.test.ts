/**
 * A rolling upgrade of real agents: five agents of the previous release (0.1.0, from its packed
 * tarballs: `pnpm previous-release`) are replaced one at a time by the working tree's, each under
 * the same name and address, as an operator upgrades a cluster: SIGTERM (what `systemctl restart`
 * sends; the agent announces its leave, waits for it to spread, exits 0), then the new version
 * starts with the same flags and joins the others, and only once every agent sees it alive at one
 * incarnation does the next go. A monitor (`GET /monitor`) on every running agent, and every
 * agent's own log, must show no suspect or dead event about an agent that was running at the
 * time. At the end the cluster is all working tree, converged, and has probed and push-pulled for a
 * while with nobody suspected. Without and with encryption (one key shared by all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, membersOf, until, type LogLine, type MembersReply } from './agents.js';
import {
  monitor,
  previousRelease,
  startVersioned,
  statsOf,
  stopBuilder,
  undecoded,
  WORKING_TREE_SWIM,
  type Monitor,
  type PreviousRelease,
  type VersionedAgent,
} from './mixed-versions.js';

const monitors: Monitor[] = [];
afterAll(() => {
  for (const m of monitors) m.close();
  stopBuilder();
  killAll();
});

/** Longest wait for one step (a few seconds on an idle machine). */
const SETTLE_MS = 90_000;
const WORKING_TREE = 'working tree';

let previous: PreviousRelease;
beforeAll(async () => {
  previous = await previousRelease();
  console.log(`previous release ${previous.version} (${previous.commit.slice(0, 12)}): ${previous.cached ? 'cached' : 'built'} in ${(previous.ms / 1000).toFixed(1)} s`);
}, 900_000);

/** Why the views of `agents` are not one converged cluster of `names` all alive, or undefined when they are. */
function disagreement(names: readonly string[], views: readonly MembersReply[]): string | undefined {
  const own = new Map(views.map((v) => [v.self, v.members.find((m) => m.name === v.self)?.incarnation]));
  for (const view of views) {
    const alive = view.members.filter((m) => m.state === 'alive').map((m) => m.name).sort();
    if (alive.join() !== [...names].sort().join()) {
      return `${view.self} sees ${view.members.map((m) => `${m.name} ${m.state}@${m.incarnation}`).join(', ')}`;
    }
    for (const m of view.members) {
      if (m.incarnation !== own.get(m.name)) return `${view.self} holds ${m.name} at incarnation ${m.incarnation}, ${m.name} itself is at ${own.get(m.name)}`;
    }
  }
  return undefined;
}

/** When each name was not running: from the SIGTERM of its old process to the start of its new one. */
type Downtimes = Map<string, Array<{ from: number; to: number }>>;

const accusation = (line: LogLine) => (line.event === 'suspect' || line.event === 'dead') && line.member !== undefined;
const render = (observer: string, line: LogLine) => `${line.time} ${observer} ${line.event} ${line.member!.name} (incarnation ${line.member!.incarnation})`;

/** Suspect and dead events, in any agent's log or monitor, about an agent that was running when it was logged. */
function accusationsOfRunning(agents: readonly VersionedAgent[], watched: readonly Monitor[], downtimes: Downtimes): { running: string[]; stopped: string[] } {
  const seen = new Set<string>();
  const running: string[] = [];
  const stopped: string[] = [];
  const consider = (observer: string, line: LogLine) => {
    if (!accusation(line)) return;
    const text = render(observer, line);
    if (seen.has(text)) return;
    seen.add(text);
    const at = Date.parse(line.time);
    const down = (downtimes.get(line.member!.name) ?? []).some((d) => at >= d.from && at <= d.to);
    (down ? stopped : running).push(text);
  };
  for (const agent of agents) for (const line of agent.lines) consider(agent.name, line);
  for (const m of watched) for (const { line } of m.lines) consider(m.observer, line);
  return { running: running.sort(), stopped: stopped.sort() };
}

describe.each([
  { mode: 'plaintext', encrypt: false },
  { mode: 'encrypted', encrypt: true },
])('rolling upgrade of five agents ($mode)', ({ mode, encrypt }) => {
  it('replaces every previous-release agent by the working tree, one at a time, with no suspicion of a running agent', { timeout: 900_000 }, async () => {
    const names = [1, 2, 3, 4, 5].map((i) => `${encrypt ? 'enc-' : ''}roll-${i}`);
    const label = `rolling upgrade ${previous.version} -> ${WORKING_TREE} (${mode})`;
    const first = await startVersioned(names[0]!, previous.version, previous.swim, { encrypt });
    const rest = await Promise.all(names.slice(1).map((name) => startVersioned(name, previous.version, previous.swim, { join: [first.address], encrypt })));
    const current = new Map<string, VersionedAgent>([first, ...rest].map((a) => [a.name, a]));
    const everyone: VersionedAgent[] = [first, ...rest];
    const watched: Monitor[] = [];
    const downtimes: Downtimes = new Map();
    const running = () => [...current.values()];
    const views = () => Promise.all(running().map(membersOf));

    const watch = async (agent: VersionedAgent) => {
      const m = monitor(agent);
      monitors.push(m);
      watched.push(m);
      await m.open;
    };
    /** Fails at once, naming them, if any agent has logged a suspicion or death of a running agent. */
    const noAccusations = () => {
      const { running: wrong } = accusationsOfRunning(everyone, watched, downtimes);
      if (wrong.length > 0) throw new Error(`${label}: suspect or dead events about running agents:\n  ${wrong.join('\n  ')}`);
    };
    const converge = async (what: string) => {
      let last: string | undefined;
      try {
        return await until(what, SETTLE_MS, async () => {
          noAccusations();
          last = disagreement(names, await views());
          return last === undefined;
        });
      } catch (error) {
        if (last === undefined) throw error;
        const problems = (await Promise.all(running().map(async (a) => undecoded(`${a.name} (${a.release})`, await statsOf(a))))).flat();
        throw new Error(`${(error as Error).message}; last disagreement: ${last}; undecoded: ${problems.join(', ') || 'none'}`);
      }
    };

    await converge(`the five ${previous.version} agents see each other alive`);
    await Promise.all(running().map(watch));

    const steps: string[] = [];
    for (const name of names) {
      const old = current.get(name)!;
      const before = (await membersOf(old)).members.find((m) => m.name === name)!.incarnation;
      const from = Date.now();
      old.child.kill('SIGTERM');
      expect(await old.exited, `${name} (${previous.version}) exit code after SIGTERM`).toBe(0);
      const exitedMs = Date.now() - from;
      current.delete(name);
      const seeds = running().map((a) => a.address);
      const restartAt = Date.now();
      downtimes.set(name, [...(downtimes.get(name) ?? []), { from, to: restartAt }]);
      const fresh = await startVersioned(name, WORKING_TREE, WORKING_TREE_SWIM, { bind: old.address, join: seeds, encrypt });
      current.set(name, fresh);
      everyone.push(fresh);
      await watch(fresh);
      const settled = await converge(`every agent sees ${name}, restarted on the ${WORKING_TREE}, alive at its own incarnation`);
      const after = (await membersOf(fresh)).members.find((m) => m.name === name)!.incarnation;
      const seenAs = everyone
        .filter((a) => a !== old && a !== fresh)
        .flatMap((a) => a.lines.filter((l) => l.member?.name === name && Date.parse(l.time) >= from).map((l) => `${a.name}:${l.event}`));
      steps.push(`${name}: exited ${exitedMs} ms after SIGTERM, converged ${settled} ms after the restart, incarnation ${before} -> ${after}; others logged ${seenAs.join(' ')}`);
      expect(after, `${name}'s incarnation after the restart`).toBeGreaterThan(before);
    }

    // All working tree now; it keeps probing and push-pulling without suspecting anyone.
    expect(running().map((a) => `${a.name} ${a.release}`)).toEqual(names.map((n) => `${n} ${WORKING_TREE}`));
    const base = await Promise.all(running().map(statsOf));
    await until('every agent probes 10 more times and push-pulls twice more', SETTLE_MS, async () => {
      noAccusations();
      const now = await Promise.all(running().map(statsOf));
      return now.every((s, i) => s.counters.probes >= base[i]!.counters.probes + 10 && s.counters.pushPulls >= base[i]!.counters.pushPulls + 2);
    });
    noAccusations();
    expect(disagreement(names, await views()), `${label}: the final cluster`).toBeUndefined();
    const stats = await Promise.all(running().map(statsOf));
    expect(running().flatMap((a, i) => undecoded(a.name, stats[i]!))).toEqual([]);
    if (encrypt) for (const s of stats) expect(s.encryption!.packetsDecrypted).toBeGreaterThan(0);

    const { stopped } = accusationsOfRunning(everyone, watched, downtimes);
    console.log(
      `${label}:\n  ${steps.join('\n  ')}\n  monitor lines: ${watched.map((m) => `${m.observer} ${m.lines.length}`).join(', ')}` +
        `\n  suspect/dead about a stopped agent (allowed): ${stopped.join('; ') || 'none'}`,
    );
    expect(watched.reduce((n, m) => n + m.lines.length, 0), 'the monitors streamed something').toBeGreaterThan(0);
    for (const m of watched) m.close();
    for (const agent of running()) agent.child.kill('SIGTERM');
    await Promise.all(running().map((a) => a.exited));
  });
});
