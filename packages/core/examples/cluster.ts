/**
 * A short simulated cluster run on virtual time: 16 members join through one seed member, then one
 * crashes, one is paused (as SIGSTOP) for a few seconds and resumed, and one leaves gracefully.
 * Prints a timeline of what the members saw, a summary and the core counters.
 *
 * Run: pnpm start            (from the repository root)
 *      pnpm start --seed 7   (another deterministic run)
 *      pnpm start --memberlist   (memberlist's behaviour: both corrections of docs/design.md off)
 *      pnpm start -- --help  (the flags; pnpm keeps `pnpm start --help` for itself)
 *      cd packages/core && npx tsx examples/cluster.ts --seed 7
 *
 * Every packet between members goes through the real wire codec; time is virtual, so the whole run
 * takes well under a second of wall time. Same seed, same run.
 */
import { memberlistProfile, presets, type Counters, type MemberEventEffect } from '../src/index.js';
import { Cluster } from '../test/harness/cluster.js';
import { CLUSTER_USAGE, parseClusterArgs, UsageError, type ClusterArgs } from './cluster-args.js';

const SIZE = 16;
const CRASHED = 'n7';
const PAUSED = 'n5';
const PAUSE_MS = 3_000;
const LEAVER = 'n3';
const STEP_MS = 100;

const args = commandLine(process.argv.slice(2));
const seed = args.seed;
const profile = args.memberlist ? 'memberlist' : 'lan';
const names = Array.from({ length: SIZE }, (_, i) => `n${i}`);
const cluster = new Cluster(profile === 'memberlist' ? { seed, config: memberlistProfile(presets.lan()) } : { seed });

/** Harness actions and self-observed facts, interleaved with the members' events in the timeline. */
const actions: Array<{ at: number; text: string }> = [];
const act = (text: string) => actions.push({ at: cluster.now, text });

// --- the run --------------------------------------------------------------------------------------

for (const name of names) cluster.add(name);
for (const name of names.slice(1)) cluster.join(name, ['n0']);
act(`${SIZE} members start; n1..n${SIZE - 1} join through n0`);

const everyoneSees = (subject: string, state: string) =>
  cluster
    .live()
    .filter((n) => n.name !== subject)
    .every((n) => cluster.stateOf(n.name, subject) === state);
const converged = () => cluster.live().every((n) => n.core.members().filter((m) => m.state === 'alive').length === SIZE);

let pausedIncarnation = cluster.node(PAUSED).core.incarnation;
/** Notes a refutation by the paused member (the core raises its incarnation; there is no event for it). */
function noteRefutation(): void {
  const core = cluster.node(PAUSED).core;
  if (core.incarnation === pausedIncarnation) return;
  act(`${PAUSED} refutes the suspicion: incarnation ${pausedIncarnation} -> ${core.incarnation}`);
  pausedIncarnation = core.incarnation;
}

/** Run in small steps until `done`; returns the virtual time it held. */
function runUntil(what: string, done: () => boolean, limitMs: number): number {
  const start = cluster.now;
  while (!done()) {
    if (cluster.now - start >= limitMs) fail(`${what}: not reached within ${limitMs / 1000} s (seed ${seed})`);
    cluster.run(STEP_MS);
    noteRefutation();
  }
  return cluster.now;
}

const convergedAt = runUntil('convergence', converged, 30_000);
act(`converged: every member sees ${SIZE} alive`);
runUntil('settle', () => cluster.now >= convergedAt + 5_000, 10_000);

cluster.crash(CRASHED);
const crashAt = cluster.now;
act(`${CRASHED} crashes (kill -9)`);
const crashSeenDeadAt = runUntil(`everyone sees ${CRASHED} dead`, () => everyoneSees(CRASHED, 'dead'), 60_000);
act(`every live member sees ${CRASHED} dead`);
runUntil('settle', () => cluster.now >= crashSeenDeadAt + 3_000, 10_000);

cluster.pause(PAUSED);
const pauseAt = cluster.now;
act(`${PAUSED} paused (SIGSTOP)`);
// A few seconds: at least PAUSE_MS, and until a peer has suspected it plus one second, so the run
// always shows a refutation. Both stay below the suspicion minimum (4.8 s at 16 members).
const suspectedByAnyone = () => cluster.live().some((n) => cluster.stateOf(n.name, PAUSED) === 'suspect');
const suspicionAt = runUntil(`someone suspects ${PAUSED}`, suspectedByAnyone, 20_000);
runUntil('pause', () => cluster.now >= Math.max(pauseAt + PAUSE_MS, suspicionAt + 1_000), 30_000);
cluster.resume(PAUSED);
const resumeAt = cluster.now;
act(`${PAUSED} resumed after ${secs(resumeAt - pauseAt)}; it handles the packets held meanwhile`);
noteRefutation();
const pausedAliveAt = runUntil(
  `everyone sees ${PAUSED} alive`,
  () => everyoneSees(PAUSED, 'alive') && cluster.live().every((n) => (n.core.member(PAUSED)?.incarnation ?? 0) === pausedIncarnation),
  30_000,
);
act(`every member holds ${PAUSED} alive at incarnation ${pausedIncarnation}`);
runUntil('settle', () => cluster.now >= pausedAliveAt + 3_000, 10_000);

cluster.leave(LEAVER);
const leaveAt = cluster.now;
act(`${LEAVER} leaves gracefully`);
const leaveSpread = () =>
  cluster.node(LEAVER).effects.some((e) => e.at >= leaveAt && e.effect.type === 'broadcast-finished' && e.effect.token === 'leave');
const leftSeenAt = runUntil(`everyone sees ${LEAVER} left`, () => everyoneSees(LEAVER, 'left'), 30_000);
act(`every member sees ${LEAVER} left`);
const leaveFinishedAt = runUntil('leave broadcast finished', leaveSpread, 30_000);
act(`${LEAVER}'s leave broadcast finished; ${LEAVER} shuts down`);
cluster.crash(LEAVER);
const endAt = runUntil('quiet period', () => cluster.now >= leaveFinishedAt + 10_000, 20_000);
act('end of run');

// --- the timeline -----------------------------------------------------------------------------------

interface Group {
  readonly first: number;
  last: number;
  readonly event: string;
  readonly subject: string;
  readonly incarnation: number;
  readonly firstObserver: string;
  readonly firstEffect: MemberEventEffect;
  readonly observers: Set<string>;
  readonly causes: Map<string, number>;
}

const groups = new Map<string, Group>();
const allEvents = [...cluster.nodes.values()]
  .flatMap((node) => node.events.map((e) => ({ observer: node.name, at: e.at, effect: e.effect })))
  .sort((a, b) => a.at - b.at);
for (const { observer, at, effect } of allEvents) {
  const { event, member } = effect;
  const key = `${event}/${member.name}/${member.incarnation}`;
  let group = groups.get(key);
  if (group === undefined) {
    group = {
      first: at,
      last: at,
      event,
      subject: member.name,
      incarnation: member.incarnation,
      firstObserver: observer,
      firstEffect: effect,
      observers: new Set(),
      causes: new Map(),
    };
    groups.set(key, group);
  }
  group.last = at;
  group.observers.add(observer);
  if (effect.cause !== undefined) group.causes.set(effect.cause.kind, (group.causes.get(effect.cause.kind) ?? 0) + 1);
}

const lines: Array<{ at: number; order: number; text: string }> = [];
// The start-up joins are 240 events; one line says what they came to.
const startupJoins = [...groups.values()].filter((g) => g.event === 'join' && g.first <= convergedAt);
if (startupJoins.length > 0) {
  const joinEvents = startupJoins.reduce((sum, g) => sum + g.observers.size, 0);
  const first = Math.min(...startupJoins.map((g) => g.first));
  const last = Math.max(...startupJoins.map((g) => g.last));
  lines.push({ at: first, order: 1, text: `join: ${joinEvents} join events about ${startupJoins.length} members, the last at ${secs(last)}` });
}
for (const g of groups.values()) {
  if (startupJoins.includes(g)) continue;
  const self = g.firstObserver === g.subject;
  let text = self
    ? `${g.subject} sees itself ${g.event} (incarnation ${g.incarnation})`
    : `${g.firstObserver} sees ${g.subject} ${g.event} (incarnation ${g.incarnation})`;
  if (g.event === 'dead' && g.firstEffect.cause !== undefined) {
    const c = g.firstEffect.cause;
    text += c.kind === 'timeout' ? ` by its own timer, ${c.confirmations} confirmation(s)` : ` on gossip from ${c.by}`;
  }
  const others = [...g.observers].filter((o) => o !== g.subject).length;
  if (!self || others > 0) {
    text += `; ${others} observer${others === 1 ? '' : 's'} in all, the last at ${secs(g.last)}`;
  }
  if (g.causes.size > 0) text += ` [${[...g.causes].map(([k, n]) => `${n} ${k}`).join(', ')}]`;
  lines.push({ at: g.first, order: 1, text });
}
for (const a of actions) lines.push({ at: a.at, order: 0, text: `== ${a.text}` });
lines.sort((a, b) => a.at - b.at || a.order - b.order);

console.log(`@swim/core simulated cluster: ${SIZE} members, ${profile === 'lan' ? 'lan preset' : 'memberlist profile (lan, corrections off)'}, seed ${seed}`);
console.log('virtual time; every packet goes through the real wire codec');
console.log('');
for (const line of lines) console.log(`${secs(line.at).padStart(8)}  ${line.text}`);

// --- the summary ------------------------------------------------------------------------------------

const deaths = allEvents.filter((e) => e.effect.event === 'dead');
const falseDeaths = deaths.filter((e) => e.effect.member.name !== CRASHED);
const pausedCore = cluster.node(PAUSED).core;
const suspectedPaused = new Set(allEvents.filter((e) => e.effect.event === 'suspect' && e.effect.member.name === PAUSED).map((e) => e.observer));

const row = (label: string, value: string) => console.log(`  ${label.padEnd(36)} ${value}`);
console.log('');
console.log('summary');
row(`converged (${SIZE} alive everywhere)`, `${secs(convergedAt)} after start`);
row(`${CRASHED} crashed, dead for all ${SIZE - 1} others`, `${secs(crashSeenDeadAt - crashAt)} after the crash`);
row(
  `${PAUSED} paused ${secs(resumeAt - pauseAt)}`,
  `suspected by ${suspectedPaused.size}, refuted ${pausedCore.counters.refutations}x, incarnation now ${pausedCore.incarnation}, ` +
    `alive for all ${secs(pausedAliveAt - resumeAt)} after resuming`,
);
row(`${LEAVER} left, seen as left by all`, `${secs(leftSeenAt - leaveAt)} after leaving (leave broadcast done after ${secs(leaveFinishedAt - leaveAt)})`);
row(
  'false deaths',
  falseDeaths.length === 0
    ? `0 (all ${deaths.length} dead verdicts are about ${CRASHED})`
    : `${falseDeaths.length} (${[...new Set(falseDeaths.map((e) => e.effect.member.name))].join(', ')})`,
);
row('virtual time simulated', secs(endAt));

const totals = [...cluster.nodes.values()].reduce<Record<string, number>>((sum, node) => {
  for (const [key, value] of Object.entries(node.core.counters as Counters)) sum[key] = (sum[key] ?? 0) + value;
  return sum;
}, {});
console.log('');
console.log(`core counters, summed over all ${SIZE} members`);
const entries = Object.entries(totals).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`);
for (let i = 0; i < entries.length; i += 5) console.log(`  ${entries.slice(i, i + 5).join('  ')}`);

if (falseDeaths.length > 0) process.exitCode = 1;

// --- helpers ----------------------------------------------------------------------------------------

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The flags, or the help (exit 0), or a usage error (exit 2, as `swim` and `pnpm bench` do). */
function commandLine(argv: readonly string[]): ClusterArgs {
  try {
    const parsed = parseClusterArgs(argv);
    if (parsed.help) {
      console.log(CLUSTER_USAGE);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`cluster example: ${error.message}\n\n${CLUSTER_USAGE}`);
    process.exit(2);
  }
}

function fail(message: string): never {
  console.error(`cluster example: ${message}`);
  process.exit(1);
}
