/**
 * A previous release's `swim agent` (0.1.0, from its packed tarballs: `pnpm previous-release`)
 * and the working tree's, in one cluster, both ways round (old joins new, new joins old), with and
 * without encryption: they see each other alive, a tag change of each reaches the other (gossip),
 * periodic push-pulls complete on both sides, neither ever fails to decode what the other sent
 * (but for the one join request a 0.1.0 seed refuses: the working tree asks in protocol version 2
 * first, then in 1), and a leave is seen as `left`, never suspect or dead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, membersOf, runNode, until, type LogLine } from './agents.js';
import { previousRelease, startVersioned, statsOf, stopBuilder, undecoded, WORKING_TREE_SWIM, type PreviousRelease, type VersionedAgent } from './mixed-versions.js';

afterAll(() => {
  stopBuilder();
  killAll();
});

/** Longest wait for one step (a few seconds on an idle machine). */
const SETTLE_MS = 60_000;

let previous: PreviousRelease;
beforeAll(async () => {
  previous = await previousRelease();
  console.log(`previous release ${previous.version} (${previous.commit.slice(0, 12)}): ${previous.cached ? 'cached' : 'built'} in ${(previous.ms / 1000).toFixed(1)} s`);
}, 900_000);

const accusations = (agent: VersionedAgent): LogLine[] => agent.lines.filter((l) => l.event === 'suspect' || l.event === 'dead');
const describeLine = (l: LogLine) => `${l.time} ${l.self} ${l.event} ${l.member?.name} (incarnation ${l.member?.incarnation})`;

async function seesAlive(observer: VersionedAgent, subject: VersionedAgent): Promise<boolean> {
  return (await membersOf(observer)).members.some((m) => m.name === subject.name && m.state === 'alive');
}

/** Sets a tag through `agent`'s own release's control endpoint, as `swim tags --set` does. */
async function setTag(agent: VersionedAgent, key: string, value: string): Promise<void> {
  const res = await fetch(`http://${agent.rpc}/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ set: { [key]: value } }) });
  expect(res.status, `POST /tags on ${agent.name} (${agent.release})`).toBe(200);
}

async function tagSeen(observer: VersionedAgent, subject: VersionedAgent, key: string, value: string): Promise<boolean> {
  return (await membersOf(observer)).members.some((m) => m.name === subject.name && m.tags[key] === value);
}

/**
 * `first` runs alone, `second` joins it; they gossip tag changes both ways, push-pull, and then
 * `second` leaves through its own release's `swim leave` and `first` sees it left.
 */
async function pair(first: VersionedAgent, startSecond: (seed: string) => Promise<VersionedAgent>, encrypted: boolean): Promise<void> {
  const second = await startSecond(first.address);
  const both = [first, second];
  const label = `${first.name} (${first.release}) and ${second.name} (${second.release})`;
  // The join handshake: a working-tree joiner's first request, in version 2, is one a 0.1.0 seed cannot read.
  const refusals = (agent: VersionedAgent): number => (agent === first && first.release !== 'working tree' && second.release === 'working tree' ? 1 : 0);
  await until(`${label} see each other alive`, SETTLE_MS, async () => {
    // What one could not decode keeps them apart: say so at once rather than time out.
    const problems = (await Promise.all(both.map(async (agent) => undecoded(`${agent.name} (${agent.release})`, await statsOf(agent), refusals(agent), false)))).flat();
    if (problems.length > 0) throw new Error(`${label} do not understand each other: ${problems.join(', ')}`);
    return (await seesAlive(first, second)) && (await seesAlive(second, first));
  });

  // Gossip, each way: a tag change travels as an alive message under a higher incarnation.
  await setTag(second, 'from', second.release);
  await until(`${first.name} sees ${second.name}'s tag`, SETTLE_MS, () => tagSeen(first, second, 'from', second.release));
  await setTag(first, 'from', first.release);
  await until(`${second.name} sees ${first.name}'s tag`, SETTLE_MS, () => tagSeen(second, first, 'from', first.release));

  // Push-pull: the join was one; every 2 s each starts another with the other, counted by both
  // (initiator and responder) once it completed.
  const before = await Promise.all(both.map(statsOf));
  await until(`two more push-pulls complete on both`, SETTLE_MS, async () => {
    const now = await Promise.all(both.map(statsOf));
    return now.every((stats, i) => stats.counters.pushPulls >= before[i]!.counters.pushPulls + 2);
  });
  const after = await Promise.all(both.map(statsOf));
  console.log(`${label}: push-pulls ${before.map((s) => s.counters.pushPulls).join('/')} -> ${after.map((s) => s.counters.pushPulls).join('/')}`);
  expect(both.flatMap((agent, i) => undecoded(`${agent.name} (${agent.release})`, after[i]!, refusals(agent)))).toEqual([]);
  for (const stats of after) {
    // Encrypted: what each received went through the envelope (packets and the push-pull streams).
    if (encrypted) expect(stats.encryption).toMatchObject({ packetsDecrypted: expect.any(Number), streamsDecrypted: expect.any(Number) });
    else expect(stats.encryption).toBeUndefined();
    if (encrypted) expect(Math.min(stats.encryption!.packetsDecrypted, stats.encryption!.streamsDecrypted)).toBeGreaterThan(0);
  }

  // A graceful leave, asked of the leaver through its own release's client.
  const [leaver, stayer] = [second, first];
  const left = await runNode([leaver.bin, 'leave', '--rpc', leaver.rpc]);
  expect(left.code, left.stderr).toBe(0);
  expect(await leaver.exited).toBe(0);
  await until(`${stayer.name} sees ${leaver.name} left`, SETTLE_MS, async () => (await membersOf(stayer)).members.some((m) => m.name === leaver.name && m.state === 'left'));
  expect(stayer.lines.filter((l) => l.event === 'left' && l.member?.name === leaver.name).length, `${stayer.name} logged ${leaver.name} left`).toBe(1);
  expect([...accusations(first), ...accusations(second)].map(describeLine)).toEqual([]);
  expect(undecoded(`${stayer.name} (${stayer.release})`, await statsOf(stayer), refusals(stayer))).toEqual([]);
  stayer.child.kill('SIGTERM');
  expect(await stayer.exited).toBe(0);
}

describe.each([
  { mode: 'plaintext', encrypt: false },
  { mode: 'encrypted', encrypt: true },
])('a previous release and the working tree ($mode)', ({ mode, encrypt }) => {
  const tag = mode === 'encrypted' ? 'enc-' : '';
  const oldAgent = (name: string, join: string[] = []) => startVersioned(name, previous.version, previous.swim, { join, encrypt });
  const newAgent = (name: string, join: string[] = []) => startVersioned(name, 'working tree', WORKING_TREE_SWIM, { join, encrypt });

  it('the previous release joins the working tree, gossips, push-pulls and leaves', { timeout: 240_000 }, async () => {
    await pair(await newAgent(`${tag}new-seed`), (seed) => oldAgent(`${tag}old-joiner`, [seed]), encrypt);
  });

  it('the working tree joins the previous release, gossips, push-pulls and leaves', { timeout: 240_000 }, async () => {
    await pair(await oldAgent(`${tag}old-seed`), (seed) => newAgent(`${tag}new-joiner`, [seed]), encrypt);
  });
});
