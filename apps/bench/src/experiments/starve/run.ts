import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng, presets, randomFloat, type SwimConfig } from '@swim/core';
import { FAST_CONFIG, delay, killEach, startCluster, type AgentProcess } from '../attack/processes.js';
import { classifyFailure } from '../lifeguard/rules.js';
import { lifeguardProfileConfig, type LifeguardProfile } from '../lifeguard/profiles.js';
import { userPath } from '../own-flags.js';
import { pickMembers } from '../setup.js';
import type { StarveParams } from './params.js';
import { udpSocketsByPort } from './udp-drops.js';

const STALL_HOOK = fileURLToPath(new URL('./stall-hook.ts', import.meta.url));

/** Salt of the generator that picks the starved agents. */
const STARVE_SALT = 0x57a7;

/**
 * `config` as the agent's `--config` overrides of its `lan` preset: every field that differs from
 * it, and every field the attack suite's process helper speeds up (FAST_CONFIG), so the agent runs
 * exactly `config`.
 */
export function agentOverrides(config: SwimConfig): Record<string, number | string | boolean> {
  const lan = presets.lan();
  const out: Record<string, number | string | boolean> = {};
  for (const key of Object.keys(config) as Array<keyof SwimConfig>) {
    if (config[key] !== lan[key] || key in FAST_CONFIG) out[key] = config[key];
  }
  return out;
}

/** One dead event from an agent's JSON log. */
export interface DeathLine {
  readonly at: number;
  readonly observer: string;
  readonly subject: string;
  readonly cause: string | undefined;
}

/** The dead events in a log's lines (anything else, or a line that is not JSON, is skipped). */
export function deathsIn(observer: string, lines: readonly string[]): DeathLine[] {
  const out: DeathLine[] = [];
  for (const text of lines) {
    if (!text.includes('"event":"dead"')) continue;
    try {
      const line = JSON.parse(text) as { time?: string; event?: string; member?: { name?: string }; cause?: string };
      if (line.event !== 'dead' || typeof line.member?.name !== 'string' || typeof line.time !== 'string') continue;
      out.push({ at: Date.parse(line.time), observer, subject: line.member.name, cause: line.cause });
    } catch {
      // not a JSON line
    }
  }
  return out;
}

export interface StarveCounts {
  readonly fp: number;
  readonly fpMinus: number;
  /** Of `fp`, verdicts of the agent's own suspicion timer. */
  readonly fpVerdicts: number;
  /** Of `fp`, raised at a starved agent. */
  readonly fpAtStarved: number;
  /** Dead events about starved agents at agents never starved (correct, not counted as FP). */
  readonly starvedDeaths: number;
}

export function countDeaths(deaths: readonly DeathLine[], starved: ReadonlySet<string>, from: number, to: number): StarveCounts {
  let fp = 0;
  let fpMinus = 0;
  let fpVerdicts = 0;
  let starvedDeaths = 0;
  for (const d of deaths) {
    if (d.at < from || d.at > to) continue;
    const c = classifyFailure(d.observer, d.subject, starved);
    if (c.fp) {
      fp++;
      if (c.fpMinus) fpMinus++;
      if (d.cause === 'timeout') fpVerdicts++;
    } else if (!starved.has(d.observer)) starvedDeaths++;
  }
  return { fp, fpMinus, fpVerdicts, fpAtStarved: fp - fpMinus, starvedDeaths };
}

export interface StarveCell extends StarveCounts {
  readonly profile: LifeguardProfile;
  readonly k: number;
  readonly starvedNames: readonly string[];
  /** FP in the quiet time before the starving (a sanity check: should be 0). */
  readonly fpBefore: number;
  /** Stalls in all: SIGSTOPs sent (sigstop), or stalls the hooks made (block, from their starve-stats lines). */
  readonly stops: number;
  /** Block mode: the share of the starving time the starved agents' event loops were blocked, measured by the hooks (0-1). */
  readonly blockedShare: number | undefined;
  /** Suspect events about never-starved agents, at any agent. */
  readonly suspectedHealthy: number;
  /** Suspect events about starved agents, at never-starved agents. */
  readonly suspectedStarved: number;
  /** Datagrams the kernel dropped at the starved agents' full sockets, and at the others' (Linux; undefined elsewhere). */
  readonly udpDrops: { readonly starved: number; readonly others: number } | undefined;
  /** The most bytes seen waiting in one starved agent's socket, and in one other agent's (sampled every 500 ms while starving; Linux). */
  readonly udpBacklog: { readonly starved: number; readonly others: number } | undefined;
  readonly wallMs: number;
}

export interface StarveResult {
  readonly experiment: 'starve';
  readonly params: StarveParams;
  readonly cells: readonly StarveCell[];
}

/** SIGSTOP / SIGCONT `pid` in a loop until `until`, starting after `phaseMs`; returns the stops sent. */
async function starveLoop(pid: number, stopMs: number, runMs: number, phaseMs: number, until: number): Promise<number> {
  let stops = 0;
  await delay(phaseMs);
  while (Date.now() + stopMs <= until) {
    if (!signal(pid, 'SIGSTOP')) break;
    stops++;
    await delay(stopMs);
    signal(pid, 'SIGCONT');
    await delay(runMs);
  }
  return stops;
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Turns `pid`'s stall hook on after `phaseMs` and off at `until`; the stalls are counted by the hook (its starve-stats line). */
async function blockLoop(pid: number, _stopMs: number, _runMs: number, phaseMs: number, until: number): Promise<number> {
  await delay(phaseMs);
  const from = Date.now();
  if (from >= until || !signal(pid, 'SIGUSR2')) return 0;
  await delay(until - from);
  signal(pid, 'SIGUSR2');
  return 0;
}

/** What the stall hook says it did, from its `starve-stats` line (block mode). */
export interface StallStats {
  readonly stalls: number;
  readonly blockedMs: number;
  readonly spanMs: number;
}

export function stallStatsIn(lines: readonly string[]): StallStats | undefined {
  for (const text of lines) {
    if (!text.includes('"event":"starve-stats"')) continue;
    try {
      const line = JSON.parse(text) as Partial<StallStats>;
      if (typeof line.stalls === 'number' && typeof line.blockedMs === 'number' && typeof line.spanMs === 'number') {
        return { stalls: line.stalls, blockedMs: line.blockedMs, spanMs: line.spanMs };
      }
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}

/** Suspect events in a log, with when they were logged. */
export function suspicionsIn(observer: string, lines: readonly string[]): Array<{ at: number; observer: string; subject: string }> {
  const out: Array<{ at: number; observer: string; subject: string }> = [];
  for (const text of lines) {
    if (!text.includes('"event":"suspect"')) continue;
    try {
      const line = JSON.parse(text) as { time?: string; event?: string; member?: { name?: string } };
      if (line.event === 'suspect' && typeof line.member?.name === 'string' && typeof line.time === 'string') {
        out.push({ at: Date.parse(line.time), observer, subject: line.member.name });
      }
    } catch {
      // not a JSON line
    }
  }
  return out;
}

/** Suspicions raised from `from` to `to`: of never-starved agents (anywhere), and of starved agents at never-starved ones. */
export function countSuspicions(
  suspicions: ReadonlyArray<{ at: number; observer: string; subject: string }>,
  starved: ReadonlySet<string>,
  from: number,
  to: number,
): { suspectedHealthy: number; suspectedStarved: number } {
  let suspectedHealthy = 0;
  let suspectedStarved = 0;
  for (const s of suspicions) {
    if (s.at < from || s.at > to) continue;
    if (!starved.has(s.subject)) suspectedHealthy++;
    else if (!starved.has(s.observer)) suspectedStarved++;
  }
  return { suspectedHealthy, suspectedStarved };
}

/**
 * The agents' UDP sockets as the kernel sees them while the starving lasts: the most bytes waiting
 * in one socket (sampled), and at the end the datagrams dropped (each agent's socket is fresh, so
 * its count starts at 0).
 */
class SocketWatch {
  readonly #ports: Array<{ port: number; starved: boolean }>;
  readonly #timer: ReturnType<typeof setInterval>;
  #backlog = { starved: 0, others: 0 };
  #seen = false;

  constructor(agents: readonly AgentProcess[], starved: ReadonlySet<string>) {
    this.#ports = agents.map((a) => ({ port: Number(a.address.slice(a.address.lastIndexOf(':') + 1)), starved: starved.has(a.name) }));
    this.#timer = setInterval(() => this.#sample(), 500);
  }

  #sample(): void {
    const sockets = udpSocketsByPort();
    if (sockets === undefined) return;
    this.#seen = true;
    for (const { port, starved } of this.#ports) {
      const queued = sockets.get(port)?.queuedBytes ?? 0;
      if (starved) this.#backlog.starved = Math.max(this.#backlog.starved, queued);
      else this.#backlog.others = Math.max(this.#backlog.others, queued);
    }
  }

  stop(): Pick<StarveCell, 'udpDrops' | 'udpBacklog'> {
    clearInterval(this.#timer);
    const sockets = udpSocketsByPort();
    if (sockets === undefined) return { udpDrops: undefined, udpBacklog: this.#seen ? this.#backlog : undefined };
    const drops = { starved: 0, others: 0 };
    for (const { port, starved } of this.#ports) {
      const dropped = sockets.get(port)?.drops ?? 0;
      if (starved) drops.starved += dropped;
      else drops.others += dropped;
    }
    return { udpDrops: drops, udpBacklog: this.#backlog };
  }
}

/** `--logs`: every agent's log lines of one cell, one file per agent. */
function keepLogs(dir: string, profile: LifeguardProfile, k: number, agents: readonly AgentProcess[]): void {
  const cellDir = join(userPath(dir), `${profile}-k${k}`);
  mkdirSync(cellDir, { recursive: true });
  for (const a of agents) writeFileSync(join(cellDir, `${a.name}.jsonl`), a.log.map((l) => `${l.text}\n`).join(''));
}

/** One cluster of `nodes` agents of `profile`, `k` starved. */
export async function starveCell(params: StarveParams, profile: LifeguardProfile, k: number, log: (line: string) => void): Promise<StarveCell> {
  const started = Date.now();
  const names = Array.from({ length: params.nodes }, (_, i) => `s${i}`);
  const config = agentOverrides(lifeguardProfileConfig(profile));
  log(`starve: ${profile}, k ${k}: starting ${params.nodes} agents`);
  // Sessions of their own: a stopped agent in the bench's process group would bring SIGHUP to it.
  const hook = params.mode === 'block' ? { imports: [STALL_HOOK], env: { SWIM_STARVE_STALL_MS: String(params.stopMs), SWIM_STARVE_RUN_MS: String(params.runMs) } } : {};
  const agents: AgentProcess[] = await startCluster(names, { config, startTimeoutMs: 120_000, detached: true, ...hook }, 120_000);
  try {
    const starvedNames = pickMembers(params.seed, names, k, STARVE_SALT);
    const starved = new Set(starvedNames);
    const settleFrom = Date.now();
    await delay(params.settleSeconds * 1000);
    const from = Date.now();
    const until = from + params.seconds * 1000;
    const rng = createRng(params.seed * 7919 + k);
    const period = params.stopMs + params.runMs;
    log(`starve: ${profile}, k ${k}: starving ${starvedNames.join(', ') || 'none'} for ${params.seconds} s`);
    const loop = params.mode === 'block' ? blockLoop : starveLoop;
    const watch = new SocketWatch(agents, starved);
    const loops = agents.filter((a) => starved.has(a.name)).map((a) => loop(a.pid, params.stopMs, params.runMs, Math.floor(randomFloat(rng) * period), until));
    const signalled = (await Promise.all(loops)).reduce((s, n) => s + n, 0);
    if (params.mode === 'sigstop') for (const a of agents) if (starved.has(a.name)) signal(a.pid, 'SIGCONT');
    await delay(Math.max(0, until - Date.now()) + params.tailSeconds * 1000);
    const to = Date.now();
    // Give the pipes a moment to deliver the last lines.
    await delay(500);
    const sockets = watch.stop();
    if (params.logsDir !== undefined) keepLogs(params.logsDir, profile, k, agents);
    const deaths = agents.flatMap((a) => deathsIn(a.name, a.log.map((l) => l.text)));
    const counts = countDeaths(deaths, starved, from, to);
    const suspicions = countSuspicions(
      agents.flatMap((a) => suspicionsIn(a.name, a.log.map((l) => l.text))),
      starved,
      from,
      to,
    );
    const stalls = agents.filter((a) => starved.has(a.name)).map((a) => stallStatsIn(a.log.map((l) => l.text)));
    if (params.mode === 'block' && stalls.some((s) => s === undefined)) throw new Error(`starve: a starved agent's stall hook did not report (${profile}, k ${k})`);
    const measured = stalls.filter((s): s is StallStats => s !== undefined);
    const stops = params.mode === 'block' ? measured.reduce((sum, s) => sum + s.stalls, 0) : signalled;
    const span = measured.reduce((sum, s) => sum + s.spanMs, 0);
    const blockedShare = params.mode === 'block' && span > 0 ? measured.reduce((sum, s) => sum + s.blockedMs, 0) / span : undefined;
    const fpBefore = countDeaths(deaths, starved, settleFrom, from - 1).fp;
    log(`starve: ${profile}, k ${k}: FP ${counts.fp}, FP- ${counts.fpMinus}`);
    return { profile, k, starvedNames, ...counts, ...suspicions, ...sockets, fpBefore, stops, blockedShare, wallMs: Date.now() - started };
  } finally {
    for (const a of agents) signal(a.pid, 'SIGCONT');
    killEach(agents);
    await Promise.all(agents.map((a) => a.exited));
  }
}

export async function runStarve(params: StarveParams, log: (line: string) => void = () => {}): Promise<StarveResult> {
  const cells: StarveCell[] = [];
  for (const k of params.starved) {
    for (const profile of params.profiles) cells.push(await starveCell(params, profile, k, log));
  }
  return { experiment: 'starve', params, cells };
}
