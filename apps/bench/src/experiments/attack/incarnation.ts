/**
 * Finding 1: one forged `suspect`, `dead` or `alive` about a real member at incarnation 2^32-1
 * (and the two-step suspect at 2^32-2 then 2^32-1) made the member refute at 2^32, which the
 * encoder cannot carry: the agent process died. Each variant has its own victim in one cluster;
 * every datagram goes to every agent. Done when no process exits and every victim is alive in every
 * view afterwards.
 */
import { failureDetectionBoundMs, pushPullIntervalMs, resolveConfig, type Message } from '@swim/core';
import { forgePacket, MAX_INCARNATION, UdpAttacker } from './forge.js';
import { FAST_CONFIG, getJson, killEach, members, startCluster, within, type AgentProcess, type MemberEntry } from './processes.js';
import { check, type Check, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

const VARIANTS = ['suspect', 'dead', 'alive', 'two-step'] as const;
type Variant = (typeof VARIANTS)[number];
const OBSERVER = 'inc-observer';
const EMPTY = new Uint8Array(0);
/** A refutation goes out with the next gossip tick or push-pull: push-pull often, so that the watch can be short. */
const CONFIG = { pushPullIntervalMs: 500 };

function forged(variant: Variant, victim: AgentProcess, incarnation: number): Message {
  switch (variant) {
    case 'suspect':
    case 'two-step':
      return { type: 'suspect', incarnation, node: victim.name, from: OBSERVER };
    case 'dead':
      return { type: 'dead', incarnation, node: victim.name, from: OBSERVER };
    case 'alive':
      return { type: 'alive', incarnation, node: victim.name, address: victim.address, meta: EMPTY };
  }
}

async function ownIncarnation(agent: AgentProcess): Promise<number | undefined> {
  return (await getJson<{ incarnation: number }>(agent, '/stats'))?.incarnation;
}

export async function runIncarnation(_sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const victimName = (v: Variant) => `inc-${v}`;
  const agents = await startCluster([OBSERVER, ...VARIANTS.map(victimName)], { config: CONFIG });
  const attacker = await UdpAttacker.open();
  try {
    const config = resolveConfig({ ...FAST_CONFIG, ...CONFIG });
    const n = agents.length;
    const byName = new Map(agents.map((a) => [a.name, a]));
    const toEveryone = (message: Message) => Promise.all(agents.map((a) => attacker.send(a.address, forgePacket([message]))));

    for (const variant of VARIANTS) {
      const victim = byName.get(victimName(variant))!;
      if (variant !== 'two-step') {
        await toEveryone(forged(variant, victim, MAX_INCARNATION));
        continue;
      }
      // Step one makes the victim refute at 2^32-1 (if it believes it); step two accuses it there.
      await toEveryone(forged(variant, victim, MAX_INCARNATION - 1));
      await within(1000, async () => victim.exit !== undefined || (await ownIncarnation(victim)) === MAX_INCARNATION);
      await toEveryone(forged(variant, victim, MAX_INCARNATION));
    }

    // The refutation at 2^32 went out with the next gossip tick or push-pull: watch past two of each.
    const watchMs = 2 * pushPullIntervalMs(config.pushPullIntervalMs, n) + 1000;
    await within(watchMs, () => agents.some((a) => a.exit !== undefined));
    const boundMs = failureDetectionBoundMs(config, n);
    const victims = VARIANTS.map((v) => byName.get(victimName(v))!);
    const viewsNow = async () => {
      const views = new Map<string, MemberEntry[]>();
      for (const a of agents) if (a.exit === undefined) views.set(a.name, await members(a).catch(() => []));
      return views;
    };
    let views = await viewsNow();
    // Refuted accusations settle within a detection bound; a victim still not alive by then stays so.
    await within(boundMs, async () => {
      views = await viewsNow();
      return agents.every((a) => a.exit === undefined) && victims.every((v) => [...views.values()].every((view) => view.find((m) => m.name === v.name)?.state === 'alive'));
    });

    const exited = agents.filter((a) => a.exit !== undefined);
    const rows: Array<[string, string]> = [];
    const checks: Check[] = [
      check(
        'no agent process exited',
        exited.length === 0 ? 'none' : exited.map((a) => `${a.name} (${a.exit!.code ?? a.exit!.signal}: ${firstError(a.stderrTail())})`).join('; '),
        'none',
        exited.length === 0,
      ),
    ];
    const figures: Record<string, unknown> = { watchMs, boundMs, exited: exited.map((a) => ({ name: a.name, code: a.exit!.code, signal: a.exit!.signal, error: firstError(a.stderrTail()) })) };
    for (const variant of VARIANTS) {
      const victim = byName.get(victimName(variant))!;
      const seen = [...views.entries()].map(([viewer, view]) => {
        const entry = view.find((m) => m.name === victim.name);
        return { viewer, state: entry?.state ?? 'absent', incarnation: entry?.incarnation };
      });
      const missing = agents.filter((a) => !views.has(a.name)).map((a) => a.name);
      const own = await ownIncarnation(victim);
      const allAlive = missing.length === 0 && seen.every((s) => s.state === 'alive');
      const text = `${seen.map((s) => `${s.viewer.replace('inc-', '')}: ${s.state}@${s.incarnation ?? '-'}`).join(', ')}${missing.length > 0 ? `; no view from ${missing.join(', ')} (exited)` : ''}`;
      rows.push([`${variant} @ 2^32-1: victim ${victim.exit === undefined ? `running, own incarnation ${own}` : 'EXITED'}`, text]);
      figures[variant] = { victimExited: victim.exit !== undefined, ownIncarnation: own, views: seen };
      checks.push(check(`${variant} @ 2^32-1: victim alive in every view`, text, 'alive everywhere', allAlive));
    }
    rows.push(['watched', `${watchMs} ms (two push-pull intervals + 1 s), then up to ${boundMs} ms (detection bound) for views to settle`]);
    return { scenario: 'incarnation', title: 'Incarnation overflow (finding 1)', wallMs: performance.now() - started, rows, figures, checks };
  } finally {
    attacker.close();
    killEach(agents);
  }
}

/** The first line of an uncaught exception in a stderr tail, e.g. "RangeError: ...". */
export function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => /Error\b/.test(l));
  return (line ?? stderr.trim().split('\n').at(-1) ?? '').trim().slice(0, 160);
}
