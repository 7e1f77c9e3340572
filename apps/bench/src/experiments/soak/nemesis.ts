/**
 * The seeded nemesis: picks faults (kill -9 and restart, SIGSTOP/SIGCONT, a namespace cut off,
 * graceful leave and rejoin, a key rotation, tag updates, a whole namespace restarted, forged
 * packets) and never lets more than a quarter of the agents be affected at once. Every kind comes
 * once early (a seeded order); then rotation, cut and namespace restart take turns every two
 * minutes (each waits for a quiet cluster) and the others are drawn by weight. Each action is
 * logged as it starts and ends (JSON lines), the records the checker reads.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createRng, randomFloat, randomInt, shuffleInPlace, type DeadMessage, type Message, type Rng, type SuspectMessage } from '@swim/core';
import { forgePacket, MAX_INCARNATION, UdpAttacker } from '../attack/forge.js';
import { AGENT_BIN, REPO_ROOT, type AgentSlot, type Fleet } from './fleet.js';
import { inGroup, type Group } from './network.js';
import { NEMESIS_KINDS, type NemesisRecord, type NemesisKind } from './timeline.js';

/** Duration ranges (s) before --time-scale; gaps between faults. */
export interface Ranges {
  readonly killDown: readonly [number, number];
  readonly stop: readonly [number, number];
  readonly cut: readonly [number, number];
  readonly leaveDown: readonly [number, number];
  readonly nsRestartWithin: number;
  readonly gap: readonly [number, number];
}

export const RANGES: Ranges = {
  killDown: [1, 60],
  stop: [1, 30],
  cut: [10, 120],
  leaveDown: [1, 30],
  nsRestartWithin: 10,
  gap: [3, 12],
};

/** How long a kind that needs a quiet cluster may hold new faults back, ms before --time-scale. */
const DRAIN_MS = 180_000;
/** Kinds that need the cluster quiet (rotation) or room for a whole group. */
const NEEDS_QUIET: readonly NemesisKind[] = ['rotate', 'cut', 'ns-restart'];

/** Time between the turns of the kinds that need quiet (rotation, cut, namespace restart), ms before --time-scale. */
const QUIET_EVERY_MS = 120_000;

/** Draw weights of the other kinds. */
const WEIGHTS: Record<NemesisKind, number> = { kill: 4, stop: 4, cut: 0, leave: 2, rotate: 0, tags: 2, 'ns-restart': 0, forge: 1 };

export interface NemesisHooks {
  /** An action ended: the checker starts timing its convergence (kill, leave, ns-restart, cut, rotate). */
  ended(action: NemesisRecord): void;
  /** A fault begins on these agents (a pending convergence on them is censored). */
  affecting(names: readonly string[]): void;
}

export class Nemesis {
  readonly actions: NemesisRecord[] = [];
  readonly #rng: Rng;
  readonly #cap: number;
  /** Agents under a fault now, by name. */
  readonly #affected = new Set<string>();
  #exclusive = false;
  #nextId = 1;
  #killCount = 0;
  #wanted: NemesisKind | undefined;
  #wantedSince = 0;
  #nextQuietAt = 0;
  #quietCount = 0;
  readonly #quietTurn: NemesisKind[];
  #tagCount = 0;
  readonly #inFlight = new Set<Promise<void>>();
  #stopping = false;

  constructor(
    readonly fleet: Fleet,
    readonly seed: number,
    readonly timeScale: number,
    readonly t0: number,
    readonly logFile: string,
    readonly hooks: NemesisHooks,
    readonly ranges: Ranges = RANGES,
  ) {
    this.#rng = createRng(seed * 1_000_003 + 29);
    this.#cap = Math.max(1, Math.floor(fleet.slots.length / 4));
    this.#quietTurn = NEEDS_QUIET.filter((k) => k !== 'cut' || fleet.network.canCut);
  }

  get cap(): number {
    return this.#cap;
  }

  #now(): number {
    return Date.now() - this.t0;
  }

  #uniformMs([lo, hi]: readonly [number, number]): number {
    return Math.round((lo + (hi - lo) * randomFloat(this.#rng)) * 1000 * this.timeScale);
  }

  #log(record: Record<string, unknown>): void {
    appendFileSync(this.logFile, `${JSON.stringify(record)}\n`);
  }

  #begin(kind: NemesisKind, targets: readonly string[], detail: Record<string, unknown> = {}): NemesisRecord {
    const action: NemesisRecord = { id: this.#nextId++, kind, targets: [...targets], start: this.#now(), detail };
    this.actions.push(action);
    for (const t of targets) this.#affected.add(t);
    this.hooks.affecting(targets);
    this.#log({ phase: 'start', id: action.id, action: kind, targets, start: action.start, ...detail });
    return action;
  }

  /** `end`: when the fault was undone, if not now (a restart counts from its process's spawn, before its first event). */
  #finish(action: NemesisRecord, release: readonly string[] = action.targets, end = this.#now()): void {
    action.end = end;
    for (const t of release) this.#affected.delete(t);
    this.#log({ phase: 'end', id: action.id, action: action.kind, targets: action.targets, start: action.start, end: action.end, ...action.detail });
    this.hooks.ended(action);
  }

  /** Agents the nemesis may pick: running, not under a fault. */
  #free(): AgentSlot[] {
    return this.fleet.running().filter((s) => !this.#affected.has(s.name));
  }

  /** Agents whose process the nemesis may end (kill, leave): free and not long-lived. */
  #mortal(): AgentSlot[] {
    return this.#free().filter((s) => !s.longLived);
  }

  #room(): number {
    return this.#cap - this.#affected.size;
  }

  #smallGroup(): Group {
    const groups = this.fleet.network.groups;
    return groups[groups.length - 1]!;
  }

  #feasible(kind: NemesisKind): boolean {
    if (this.#exclusive) return false;
    const small = this.#smallGroup();
    const groupFree = small.members.every((i) => !this.#affected.has(this.fleet.slots[i]!.name) && this.fleet.slots[i]!.proc?.exit === undefined);
    switch (kind) {
      case 'kill':
      case 'leave':
        return this.#room() >= 1 && this.#mortal().length > 0;
      case 'stop':
        return this.#room() >= 1 && this.#free().length > 0;
      case 'cut':
        return this.fleet.network.canCut && groupFree && this.#room() >= small.members.length;
      case 'ns-restart':
        return groupFree && this.#room() >= small.members.length;
      case 'rotate':
        return this.#affected.size === 0 && this.fleet.running().length === this.fleet.slots.length;
      case 'tags':
      case 'forge':
        return this.#free().length > 0;
    }
  }

  /**
   * The next kind: each kind once first (a seeded order), then drawn by weight among those that
   * can run now. The kinds that need the cluster quiet (rotation) or room for a whole group (cut,
   * namespace restart) come in turn every {@link QUIET_EVERY_MS}: no new fault starts until the
   * running ones end (at most {@link DRAIN_MS}), then that one runs.
   */
  #pickKind(first: NemesisKind[]): NemesisKind | undefined {
    if (this.#wanted === undefined && first.length === 0 && this.#now() >= this.#nextQuietAt) {
      this.#wanted = this.#quietTurn[this.#quietCount++ % this.#quietTurn.length];
      this.#wantedSince = this.#now();
    }
    if (this.#wanted !== undefined) {
      const wanted = this.#wanted;
      if (this.#feasible(wanted)) {
        this.#wanted = undefined;
        this.#nextQuietAt = this.#now() + QUIET_EVERY_MS * this.timeScale;
        return wanted;
      }
      if (this.#now() - this.#wantedSince < DRAIN_MS * this.timeScale) return undefined;
      this.#log({ phase: 'skipped', action: wanted, at: this.#now(), why: 'the cluster did not quieten in time' });
      this.#wanted = undefined;
      this.#nextQuietAt = this.#now() + QUIET_EVERY_MS * this.timeScale;
    }
    if (first.length > 0) {
      const ready = first.find((k) => this.#feasible(k)) ?? first.find((k) => NEEDS_QUIET.includes(k));
      if (ready === undefined) return undefined;
      first.splice(first.indexOf(ready), 1);
      if (this.#feasible(ready)) {
        if (NEEDS_QUIET.includes(ready)) this.#nextQuietAt = this.#now() + QUIET_EVERY_MS * this.timeScale;
        return ready;
      }
      this.#wanted = ready;
      this.#wantedSince = this.#now();
      return undefined;
    }
    return this.#draw();
  }

  /** A kind by weight among those that can run now, leaving out the ones that wait for quiet. */
  #draw(): NemesisKind | undefined {
    const kinds = NEMESIS_KINDS.filter((k) => !NEEDS_QUIET.includes(k) && this.#feasible(k));
    if (kinds.length === 0) return undefined;
    const total = kinds.reduce((sum, k) => sum + WEIGHTS[k], 0);
    let x = randomFloat(this.#rng) * total;
    for (const k of kinds) {
      x -= WEIGHTS[k];
      if (x < 0) return k;
    }
    return kinds[kinds.length - 1]!;
  }

  #pick<T>(items: readonly T[]): T {
    return items[randomInt(this.#rng, items.length)]!;
  }

  /** Seeds for a (re)joining agent: up to three running agents other than itself. */
  #seeds(except: readonly string[]): string[] {
    const candidates = this.fleet.running().filter((s) => !except.includes(s.name) && !this.#affected.has(s.name));
    shuffleInPlace(this.#rng, candidates);
    return candidates.slice(0, 3).map((s) => s.address);
  }

  /** Act until `durationMs` after the start, then wait for the faults in flight to end. */
  async run(durationMs: number): Promise<void> {
    const first = [...NEMESIS_KINDS];
    shuffleInPlace(this.#rng, first);
    if (!this.fleet.network.canCut) first.splice(first.indexOf('cut'), 1);
    while (this.#now() < durationMs && !this.#stopping) {
      await sleep(this.#uniformMs(this.ranges.gap));
      if (this.#now() >= durationMs || this.#stopping) break;
      const kind = this.#pickKind(first);
      if (kind === undefined) continue;
      const p = this.#act(kind).catch((error: unknown) => this.#log({ phase: 'error', action: kind, error: String(error), at: this.#now() }));
      this.#inFlight.add(p);
      void p.finally(() => this.#inFlight.delete(p));
      // Exclusive actions (rotation) run alone.
      if (kind === 'rotate') await p;
    }
    await Promise.all([...this.#inFlight]);
  }

  stop(): void {
    this.#stopping = true;
  }

  async #act(kind: NemesisKind): Promise<void> {
    switch (kind) {
      case 'kill':
        return this.#kill();
      case 'stop':
        return this.#stopCont();
      case 'cut':
        return this.#cut();
      case 'leave':
        return this.#leave();
      case 'rotate':
        return this.#rotate();
      case 'tags':
        return this.#tags();
      case 'ns-restart':
        return this.#nsRestart();
      case 'forge':
        return this.#forge();
    }
  }

  async #kill(): Promise<void> {
    // Alternate between agents that run with --snapshot and those that do not: half the restarts use it.
    const wantSnapshot = this.#killCount++ % 2 === 0;
    const free = this.#mortal();
    const pool = free.filter((s) => s.snapshot === wantSnapshot);
    const slot = this.#pick(pool.length > 0 ? pool : free);
    const downMs = this.#uniformMs(this.ranges.killDown);
    const action = this.#begin('kill', [slot.name], { signal: 'SIGKILL', downMs, snapshot: slot.snapshot, pid: slot.proc?.pid });
    this.fleet.signal(slot, 'SIGKILL', 'nemesis kill -9');
    await slot.proc?.exited;
    await sleep(downMs);
    // A snapshot agent finds the cluster from its snapshot (Serf's rejoin); the others are given seeds.
    const seeds = slot.snapshot ? [] : this.#seeds([slot.name]);
    const proc = await this.fleet.start(slot, seeds);
    this.#finish(action, action.targets, proc.startedAt - this.t0);
  }

  async #stopCont(): Promise<void> {
    const slot = this.#pick(this.#free());
    const stoppedMs = this.#uniformMs(this.ranges.stop);
    const action = this.#begin('stop', [slot.name], { stoppedMs, pid: slot.proc?.pid });
    this.fleet.signal(slot, 'SIGSTOP', 'nemesis stop');
    await sleep(stoppedMs);
    this.fleet.signal(slot, 'SIGCONT', 'nemesis cont');
    this.#finish(action);
  }

  async #cut(): Promise<void> {
    const group = this.#smallGroup();
    const names = group.members.map((i) => this.fleet.slots[i]!.name);
    const cutMs = this.#uniformMs(this.ranges.cut);
    const action = this.#begin('cut', names, { group: group.name, netns: group.netns, cutMs });
    this.fleet.network.cut(group);
    await sleep(cutMs);
    this.fleet.network.heal(group);
    this.#finish(action);
  }

  async #leave(): Promise<void> {
    const slot = this.#pick(this.#mortal());
    const how = randomInt(this.#rng, 2) === 0 ? 'SIGTERM' : 'swim leave';
    const downMs = this.#uniformMs(this.ranges.leaveDown);
    const action = this.#begin('leave', [slot.name], { how, downMs, pid: slot.proc?.pid });
    const proc = slot.proc!;
    proc.expectedExit = 'nemesis leave';
    if (how === 'SIGTERM') this.fleet.signal(slot, 'SIGTERM', 'nemesis leave');
    else action.detail['cli'] = await swimCli(slot.group, ['leave', '--rpc', slot.rpc]);
    await Promise.race([proc.exited, sleep(15_000)]);
    if (proc.exit === undefined) {
      action.detail['forced'] = 'still running 15 s after the leave: SIGKILL';
      this.fleet.signal(slot, 'SIGKILL', 'nemesis leave (forced)');
      await proc.exited;
    }
    action.detail['exitCode'] = proc.exit?.code;
    await sleep(downMs);
    const started = await this.fleet.start(slot, this.#seeds([slot.name]));
    this.#finish(action, action.targets, started.startedAt - this.t0);
  }

  async #rotate(): Promise<void> {
    this.#exclusive = true;
    try {
      const slot = this.#pick(this.fleet.running());
      const next = randomBytes(32).toString('base64');
      const previous = this.fleet.key;
      const action = this.#begin('rotate', [], { via: slot.name });
      const steps: Array<Record<string, unknown>> = [];
      for (const [op, key] of [['install', next], ['use', next], ['remove', previous]] as const) {
        const result = await swimCli(slot.group, ['keys', op, key, '--rpc', slot.rpc, '--json', '--timeout', '10000']);
        steps.push({ op, ...result });
        if (result.code !== 0) break;
      }
      action.detail['steps'] = steps;
      if (steps.every((s) => s['code'] === 0)) this.fleet.key = next;
      this.#finish(action);
    } finally {
      this.#exclusive = false;
    }
  }

  async #tags(): Promise<void> {
    const slot = this.#pick(this.#free());
    const value = `v${++this.#tagCount}`;
    const action = this.#begin('tags', [], { agent: slot.name, set: `soak=${value}` });
    action.detail['cli'] = await swimCli(slot.group, ['tags', '--set', `soak=${value}`, '--rpc', slot.rpc, '--json']);
    this.#finish(action);
  }

  async #nsRestart(): Promise<void> {
    const group = this.#smallGroup();
    const slots = group.members.map((i) => this.fleet.slots[i]!);
    const action = this.#begin('ns-restart', slots.map((s) => s.name), { group: group.name, within: this.ranges.nsRestartWithin });
    const spacing = (this.ranges.nsRestartWithin * 1000 * 0.8) / slots.length;
    const steps: Array<{ agent: string; stoppedAt: number; startedAt?: number }> = [];
    action.detail['steps'] = steps;
    await Promise.all(
      slots.map(async (slot, i) => {
        await sleep(i * spacing);
        const step: { agent: string; stoppedAt: number; startedAt?: number } = { agent: slot.name, stoppedAt: this.#now() };
        steps.push(step);
        const proc = slot.proc!;
        this.fleet.signal(slot, 'SIGTERM', 'nemesis namespace restart');
        await Promise.race([proc.exited, sleep(8000)]);
        if (proc.exit === undefined) {
          this.fleet.signal(slot, 'SIGKILL', 'nemesis namespace restart (forced)');
          await proc.exited;
        }
        const others = this.fleet.running().filter((s) => s.group.name !== group.name);
        shuffleInPlace(this.#rng, others);
        const started = await this.fleet.start(slot, others.slice(0, 3).map((s) => s.address));
        step.startedAt = started.startedAt - this.t0;
      }),
    );
    action.detail['tookMs'] = this.#now() - action.start;
    this.#finish(action);
  }

  async #forge(): Promise<void> {
    const victims = this.#free();
    shuffleInPlace(this.#rng, victims);
    const targets = victims.slice(0, 3);
    const names = this.fleet.slots.map((s) => s.name);
    const action = this.#begin('forge', [], { to: targets.map((t) => t.name), from: this.fleet.network.outsideHost });
    let attacker: UdpAttacker | undefined;
    try {
      attacker = await UdpAttacker.open(this.fleet.network.outsideHost);
      for (const target of targets) {
        for (let i = 0; i < 200; i++) {
          const node = this.#pick(names);
          const messages: Message[] =
            i % 4 === 0
              ? [{ type: 'dead', incarnation: MAX_INCARNATION, node, from: 'intruder' } satisfies DeadMessage]
              : i % 4 === 1
                ? [{ type: 'suspect', incarnation: MAX_INCARNATION, node, from: 'intruder' } satisfies SuspectMessage]
                : i % 4 === 2
                  ? [{ type: 'alive', incarnation: MAX_INCARNATION, node, address: target.address, meta: new Uint8Array(0) }]
                  : [];
          await attacker.send(target.address, messages.length > 0 ? forgePacket(messages) : randomBytes(64 + randomInt(this.#rng, 1200)));
        }
      }
      action.detail['packets'] = attacker.packetsSent;
    } catch (error) {
      action.detail['error'] = String(error);
    } finally {
      attacker?.close();
    }
    this.#finish(action, []);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `swim <args>` (the built binary) inside the group's namespace, as an operator runs it. */
export function swimCli(group: Group, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, argv] = inGroup(group, process.execPath, [AGENT_BIN, ...args]);
  const env = { ...process.env };
  delete env['SWIM_RPC_TOKEN'];
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout = (stdout + c.toString()).slice(-4000)));
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    child.once('exit', (code) => resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() }));
  });
}

