/**
 * The demo's cluster: real members over UDP/TCP on loopback, all in this process, each with a
 * pausable clock and a fault layer so that one can be crashed, paused, cut off or partitioned
 * from the page or the API. Every membership change any member sees is reported once as a
 * cluster event (first observer wins), so the log reads like the cluster's story: a change is
 * news only when it moves the subject to a state the log has not already told (a restarted member
 * learning of everyone else is not), and a dead or left member dropped from a view is reported
 * as reaped (memberlist keeps no event for that either; the core reaps in its probe pass).
 */
import type { MemberCounts, PresetName, SwimConfig } from '@swim/core';
import { Member, realClock, type MembershipChange } from '@swim/runtime';
import { Faults, PausableClock } from '@swim/transport-memory';
import { createUdpTransport } from '@swim/transport-udp';
import type { DemoEvent, DemoMemberSnapshot, ProcessState } from './api.js';
import { describeError, ERROR_LINES_PER_SECOND, LogBudget } from '@swim/cli/contained-errors';
import { FaultTransport } from './fault-transport.js';

/** How often views are compared for reaped members, and the partition checked for new outsiders. */
const SWEEP_MS = 250;
/** The view of a crashed member: it holds nobody. */
const NO_VIEW: MemberCounts = Object.freeze({ alive: 0, suspect: 0, dead: 0, left: 0 });

/** The state a membership event leaves its subject in (update keeps it alive). */
/** Within one incarnation a member's state only moves forward (memberlist merge rules). */
const STATE_ORDER: readonly string[] = ['alive', 'suspect', 'dead', 'left'];
const STATE_AFTER: Readonly<Record<string, string>> = { join: 'alive', alive: 'alive', update: 'alive', suspect: 'suspect', dead: 'dead', left: 'left' };

export interface DemoClusterOptions {
  /** UDP members started at once (default 12). */
  readonly size?: number;
  /** Loopback host the members bind (default 127.0.0.1). */
  readonly host?: string;
  readonly preset?: PresetName;
  readonly config?: Partial<SwimConfig>;
  /** Seeds the first member joins (e.g. the gateway's member); the others join the first. */
  readonly seeds?: readonly string[];
  /**
   * Addresses of the members outside this cluster (the gateway's member, the browsers' relays):
   * a partition puts them in the first half, so they cannot carry probes across the cut.
   */
  readonly outsiders?: () => readonly string[];
}

interface Entry {
  readonly name: string;
  port: number;
  address: string;
  member: Member | undefined;
  transport: FaultTransport | undefined;
  clock: PausableClock;
  process: ProcessState;
}

export class DemoCluster {
  readonly faults = new Faults();
  /** The two halves of the current partition, by member name; undefined when healed. */
  #halves: readonly [ReadonlySet<string>, ReadonlySet<string>] | undefined;
  /** Addresses of the second half while partitioned: streams into them are refused (see #boot). */
  #farSide: ReadonlySet<string> = new Set();
  /** The outsiders' addresses the partition in force was applied with (see #applyPartition). */
  #outsidersApplied = '';
  /** Wall-clock ms of the last heal, until the next partition: the reconnect is at work. */
  #healedAt: number | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<(event: DemoEvent) => void>();
  /** Per subject, the state and incarnation the log last told; 'reaped' once dropped. */
  readonly #told = new Map<string, { state: string; incarnation: number }>();
  /** Per observer, the dead and left members it held at the last reap sweep. */
  readonly #downHeld = new Map<string, Map<string, number>>();
  readonly #sweep: ReturnType<typeof setInterval>;
  /** Exceptions a member (or the gateway's) contained, in the event log at a bounded rate. */
  readonly #errorLines = new LogBudget(ERROR_LINES_PER_SECOND);
  readonly #options: Required<Pick<DemoClusterOptions, 'host' | 'preset'>> & DemoClusterOptions;
  #next = 1;

  private constructor(options: DemoClusterOptions) {
    this.#options = { host: '127.0.0.1', preset: 'lan', ...options };
    this.#sweep = setInterval(() => {
      this.#followOutsiders();
      this.#sweepReaped();
    }, SWEEP_MS);
    this.#sweep.unref();
  }

  static async start(options: DemoClusterOptions = {}): Promise<DemoCluster> {
    const cluster = new DemoCluster(options);
    const size = options.size ?? 12;
    if (size > 0) await cluster.add();
    await Promise.all(Array.from({ length: size - 1 }, () => cluster.add()));
    return cluster;
  }

  /** Every member's name, in creation order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  member(name: string): Member | undefined {
    return this.#entry(name).member;
  }

  /** Report an exception that `source` (a member, the gateway) survived, in the event log, at a bounded rate. */
  reportError(source: string, where: string, error: unknown): void {
    const { allowed, suppressed } = this.#errorLines.take();
    if (!allowed) return;
    const more = suppressed === 0 ? '' : ` (${suppressed} more not shown)`;
    this.#action(`${source} contained an exception in ${where}, still running: ${describeError(error)}${more}`, source);
  }

  /** Tell an action of the demo's (a gateway killed or restarted) in the event log. */
  note(text: string, subject?: string): void {
    this.#action(text, subject);
  }

  /** The addresses of the running demo members (seeds for a restarted gateway). */
  runningAddresses(): string[] {
    return [...this.#entries.values()].filter((entry) => entry.process === 'running' && entry.member !== undefined).map((entry) => entry.address);
  }

  onEvent(listener: (event: DemoEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Start a new member and join it through a running one (or the configured seeds). */
  async add(): Promise<string> {
    const name = `m${this.#next++}`;
    const entry: Entry = { name, port: 0, address: '', member: undefined, transport: undefined, clock: new PausableClock(realClock), process: 'running' };
    this.#entries.set(name, entry);
    await this.#boot(entry);
    // A member added during a partition sides with the first half, as the gateway does.
    if (this.#halves !== undefined) {
      this.#halves = [new Set([...this.#halves[0], name]), this.#halves[1]];
      this.#applyPartition();
    }
    this.#action(`${name} started at ${entry.address}${this.#halves === undefined ? '' : ', with the first half of the partition'}`, name);
    return name;
  }

  /** kill -9: the member stops without a word; its socket closes. */
  async crash(name: string): Promise<void> {
    const entry = this.#entry(name);
    if (entry.process === 'crashed') return;
    entry.process = 'crashed';
    const member = entry.member;
    entry.member = undefined;
    entry.transport = undefined;
    this.#action(`${name} crashed`, name);
    await member?.close();
  }

  /** Start a crashed member again under the same name and address: it refutes its death. */
  async restart(name: string): Promise<void> {
    const entry = this.#entry(name);
    if (entry.process !== 'crashed') return;
    entry.process = 'running';
    entry.clock = new PausableClock(realClock);
    await this.#boot(entry);
    this.#action(`${name} restarted at ${entry.address}`, name);
  }

  /** SIGSTOP: timers frozen, incoming traffic held. */
  pause(name: string): void {
    const entry = this.#entry(name);
    if (entry.process !== 'running') return;
    entry.process = 'paused';
    entry.clock.pause();
    entry.transport?.pause();
    this.#action(`${name} paused`, name);
  }

  /** SIGCONT: held traffic first, then the overdue timers. */
  resume(name: string): void {
    const entry = this.#entry(name);
    if (entry.process !== 'paused') return;
    entry.process = 'running';
    entry.transport?.resume();
    entry.clock.resume();
    this.#action(`${name} resumed`, name);
  }

  /** Cut a member off the network (its process keeps running), or end that. */
  blackout(name: string, on: boolean): void {
    const entry = this.#entry(name);
    if (on) this.faults.startBlackout([entry.address]);
    else this.faults.endBlackout([entry.address]);
    this.#action(on ? `${name} cut off the network` : `${name} reconnected`, name);
  }

  /**
   * Split the demo members into two halves by creation order. The members outside (gateway,
   * browsers) side with the first half: were they on neither side, their indirect probes
   * (SWIM paper §4.1 ping-req) would carry traffic across the cut and nobody would die.
   */
  partition(): void {
    const names = this.names();
    const half = Math.ceil(names.length / 2);
    const [a, b] = [names.slice(0, half), names.slice(half)];
    this.#halves = [new Set(a), new Set(b)];
    this.#healedAt = undefined;
    this.#applyPartition();
    const outside = (this.#options.outsiders?.() ?? []).length === 0 ? '' : ` (with the gateway and browsers)`;
    this.#action(`partition: ${a.join(' ')}${outside} | ${b.join(' ')}`);
  }

  /**
   * Put the partition in force with the addresses known now: the first half, and the outsiders
   * (a browser tab that joined since included), against the second half.
   */
  #applyPartition(): void {
    if (this.#halves === undefined) return;
    const addresses = (half: ReadonlySet<string>) => [...half].map((n) => this.#entry(n).address);
    const outsiders = [...(this.#options.outsiders?.() ?? [])];
    this.faults.heal();
    this.faults.partition([...addresses(this.#halves[0]), ...outsiders], addresses(this.#halves[1]));
    this.#farSide = new Set(addresses(this.#halves[1]));
    this.#outsidersApplied = outsiders.join(' ');
  }

  heal(): void {
    if (this.#halves === undefined) return;
    this.faults.heal();
    this.#halves = undefined;
    this.#farSide = new Set();
    this.#healedAt = Date.now();
    this.#action('partition healed');
  }

  /** The current partition: the two halves, the gateway's side (0), or when the last heal was. */
  partitionState(): { readonly halves: readonly [string[], string[]] | null; readonly gatewaySide: 0 | null; readonly healedAt: number | null } {
    const halves = this.#halves === undefined ? null : ([[...this.#halves[0]], [...this.#halves[1]]] as [string[], string[]]);
    return { halves, gatewaySide: halves === null ? null : 0, healedAt: this.#healedAt ?? null };
  }

  snapshot(): DemoMemberSnapshot[] {
    return [...this.#entries.values()].map((entry) => {
      return {
        name: entry.name,
        address: entry.address,
        process: entry.process,
        blackout: this.faults.blackedOut(entry.address),
        group: this.#sideOf(entry.name),
        incarnation: entry.member?.incarnation ?? 0,
        healthScore: entry.member?.healthScore ?? 0,
        view: entry.member?.memberCounts() ?? NO_VIEW,
      };
    });
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const members = [...this.#entries.values()].map((entry) => entry.member);
    for (const entry of this.#entries.values()) entry.member = undefined;
    await Promise.all(members.map((member) => member?.close()));
  }

  /** 0 or 1 while partitioned, null otherwise or for a member added since. */
  #sideOf(name: string): number | null {
    const index = this.#halves?.findIndex((half) => half.has(name)) ?? -1;
    return index < 0 ? null : index;
  }

  async #boot(entry: Entry): Promise<void> {
    const { host, preset, config } = this.#options;
    const udp = await createUdpTransport({ bind: { host, port: entry.port } });
    entry.port = udp.port;
    entry.address = udp.address;
    // A stream's source is an ephemeral port that names no sender, so the far half refuses every
    // incoming stream while partitioned (push-pulls from the gateway and browsers' relays included).
    const transport = new FaultTransport(udp, this.faults, () => this.#farSide.has(entry.address));
    const member = new Member({ name: entry.name, transport, clock: entry.clock, preset, ...(config === undefined ? {} : { config }) });
    entry.member = member;
    entry.transport = transport;
    member.on('change', (change) => this.#change(entry.name, change));
    member.on('error', ({ error, where }) => this.reportError(entry.name, where, error));
    const seeds = this.#seedsFor(entry);
    if (seeds.length > 0) {
      member.join(seeds).catch((error: unknown) => this.#action(`${entry.name} could not join: ${(error as Error).message}`, entry.name));
    }
  }

  #seedsFor(entry: Entry): string[] {
    const running = [...this.#entries.values()].find((other) => other !== entry && other.process === 'running' && other.member !== undefined);
    const seeds = [...(this.#options.seeds ?? [])];
    if (running !== undefined) seeds.push(running.address);
    return seeds;
  }

  #change(observer: string, change: MembershipChange): void {
    const { event, member } = change;
    if (member.name === observer) return;
    const state = STATE_AFTER[event] ?? event;
    const told = this.#told.get(member.name);
    // Another observer catching up is not news: an older incarnation, or at the same incarnation a
    // state no further along than the one told (memberlist's order: alive, suspect, dead, left). A
    // lagging observer reaching `suspect` after the log told `dead` would otherwise be told again.
    // After a reap anything is news: a restarted member comes back at a lower incarnation.
    if (told !== undefined && told.state !== 'reaped') {
      if (member.incarnation < told.incarnation) return;
      if (member.incarnation === told.incarnation && STATE_ORDER.indexOf(state) <= STATE_ORDER.indexOf(told.state)) return;
    }
    this.#told.set(member.name, { state, incarnation: member.incarnation });
    this.#emit({
      time: Date.now(),
      kind: 'change',
      // An update is a new address (a tab moved to another gateway) or new metadata: say where it is.
      text: `${member.name} ${event}${event === 'update' ? `, now at ${member.address}` : ''} (incarnation ${member.incarnation}), first seen by ${observer}`,
      subject: member.name,
      event,
      observer,
      incarnation: member.incarnation,
    });
  }

  /** Report members dropped from a view while dead or left (the probe pass reaps them), once each. */
  /** Tabs that joined during a partition side with the first half too. */
  #followOutsiders(): void {
    if (this.#halves !== undefined && (this.#options.outsiders?.() ?? []).join(' ') !== this.#outsidersApplied) this.#applyPartition();
  }

  #sweepReaped(): void {
    for (const entry of this.#entries.values()) {
      const member = entry.member;
      if (member === undefined) {
        this.#downHeld.delete(entry.name);
        continue;
      }
      const before = this.#downHeld.get(entry.name);
      const now = new Map<string, number>();
      const held = new Set<string>();
      for (const view of member.allMembers()) {
        held.add(view.name);
        if (view.state === 'dead' || view.state === 'left') now.set(view.name, view.incarnation);
      }
      this.#downHeld.set(entry.name, now);
      for (const [subject, incarnation] of before ?? []) {
        // Only news while the log last told the subject down: once a restart's join has been told,
        // an observer dropping the old dead record is not (it would read "reaped" about a live member).
        const told = this.#told.get(subject)?.state;
        if (held.has(subject) || (told !== 'dead' && told !== 'left')) continue;
        this.#told.set(subject, { state: 'reaped', incarnation });
        this.#emit({ time: Date.now(), kind: 'change', text: `${subject} reaped (incarnation ${incarnation}): dropped from the view of ${entry.name}`, subject, event: 'reaped', observer: entry.name, incarnation });
      }
    }
  }

  #action(text: string, subject?: string): void {
    this.#emit({ time: Date.now(), kind: 'action', text, ...(subject === undefined ? {} : { subject }) });
  }

  #emit(event: DemoEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // One consumer's failure (a closed stream) must not keep the event from the others.
      }
    }
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry === undefined) throw new RangeError(`no demo member named ${name}`);
    return entry;
  }
}
