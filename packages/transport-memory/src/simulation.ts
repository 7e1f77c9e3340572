import { createRng, type DeathCause, type MemberEventKind, type MemberState, type PreloadedMember, type PresetName, type SwimConfig, type WireCodec } from '@swim/core';
import { Member, type MemberSnapshot, type MembershipChange } from '@swim/runtime';
import { AliveMatrix } from './alive-matrix.js';
import type { LatencyModel } from './latency.js';
import type { MemoryTransport } from './memory-transport.js';
import { MemoryNetwork } from './network.js';
import { PausableClock } from './pausable-clock.js';
import { VirtualClock } from './virtual-clock.js';

/** Options of a {@link Simulation}. */
export interface SimulationOptions {
  /** Everything random (latency, loss, every member's core) derives from this seed. */
  readonly seed: number;
  /** One-way delay model; default uniform 1-5 ms. */
  readonly latency?: LatencyModel;
  /** Config preset of every member (default `lan`). */
  readonly preset?: PresetName;
  /** Config overrides of every member (a member's own overrides go on top). */
  readonly config?: Partial<SwimConfig>;
  /** The network's MTU; members fill packets up to it. Default 1400. */
  readonly maxPacketBytes?: number;
  /** Every member's wire format, one instance each (default: the native codec). */
  readonly codec?: () => WireCodec;
  /**
   * How members are addressed: `name:7946` (default), or `ip`: 10.x.y.z:7946, numbered in the
   * order members are added, for wire formats that carry addresses as IP bytes (memberlist's).
   */
  readonly addresses?: 'names' | 'ip';
}

/** Options of one simulated member (`addMember`; every member of `startCluster` and `formCluster`). */
export interface SimMemberOptions {
  /** Config overrides of this member, on top of the simulation's `config`. */
  readonly config?: Partial<SwimConfig>;
  /** The member's metadata (`MemberOptions.meta`); default empty. */
  readonly meta?: Uint8Array;
}

/** Options of {@link Simulation.startCluster}: every member's options, and how the joins are spread. */
export interface StartClusterOptions extends SimMemberOptions {
  /** Joins of n1..n(n-1) are spread evenly over this long from now (default 1000 ms). */
  readonly joinSpreadMs?: number;
}

/** One membership event seen by one member, stamped with the virtual time. */
export interface SimEvent {
  /** Virtual time of the change, in ms. */
  readonly at: number;
  /** The member that saw the change. */
  readonly observer: string;
  /** Which change: join, update, suspect, alive, dead or left. */
  readonly kind: MemberEventKind;
  /** The member it is about. */
  readonly subject: string;
  /** The subject's incarnation as the observer holds it after the change. */
  readonly incarnation: number;
  /** For `dead`: how the verdict was reached. */
  readonly cause: DeathCause | undefined;
}

/** A fire-and-forget join or leave that rejected; `at` is when the simulation noticed. */
export interface SimFailure {
  /** Virtual time (ms) when the rejection was noticed. */
  readonly at: number;
  /** Name of the member whose call rejected. */
  readonly member: string;
  /** Which call rejected: `Simulation.join` or `Simulation.leave`. */
  readonly action: 'join' | 'leave';
  /** What it rejected with (a `JoinError` when no seed answered a join). */
  readonly error: unknown;
}

/** Options of {@link Simulation.restart}. */
export interface RestartOptions {
  /** Join through these (member names, or raw addresses) once started; none: the process starts alone. */
  readonly seeds?: readonly string[];
  /** Config overrides of the new process, on top of the simulation's and the member's own (from `addMember`). */
  readonly config?: Partial<SwimConfig>;
  /** The new process's metadata; default the member's own from `addMember`. */
  readonly meta?: Uint8Array;
  /** Members the new process preloads (`Member.preload`) before it joins. */
  readonly preload?: readonly PreloadedMember[];
  /**
   * Start the new process from this snapshot (`MemberOptions.restore`, taken with `member.snapshot()`
   * before the crash): one incarnation above the snapshot's, holding its members alive.
   */
  readonly restore?: MemberSnapshot;
}

interface SimMember {
  readonly name: string;
  readonly index: number;
  /** Its address now: where it started, or where it last moved ({@link Simulation.move}). */
  address: string;
  /** The running process's transport: what {@link Simulation.move} moves. */
  transport: MemoryTransport;
  /** The member's options from `addMember`; a restart starts from them again. */
  readonly options: SimMemberOptions;
  /** The running process; a restart replaces it. */
  member: Member;
  clock: PausableClock;
  /** How many times it was restarted: each process draws its own seed. */
  generation: number;
  /** Crashed or left: no longer counted by `converged()`. */
  down: boolean;
  /** Crashed (its transport is gone): `restart` may bring it back. */
  crashed: boolean;
}

/**
 * The deterministic simulator (docs/design.md, "The simulator"): real runtime {@link Member}s, each
 * with a real core and codec, on one {@link VirtualClock} and one {@link MemoryNetwork}. The same
 * seed and the same calls give the same run, event for event.
 *
 * Members are addressed by name here; their transport address is {@link Simulation.addressOf}.
 * Each member runs on its own pausable view of the clock so that `pause` can freeze its timers
 * (SIGSTOP) while `blackout` leaves them running (docs/corrections-study.md).
 */
export class Simulation {
  /** The seed given in the options; errors name it so that a failing run can be replayed. */
  readonly seed: number;
  /** The virtual clock of every member and of the network; time moves only when it is run (`runFor`, `runUntil`). */
  readonly clock: VirtualClock;
  /** The in-memory network the members' transports are on, addressed by {@link Simulation.addressOf}. */
  readonly network: MemoryNetwork;
  readonly #preset: PresetName | undefined;
  readonly #codec: (() => WireCodec) | undefined;
  readonly #ipAddresses: Map<string, string> | undefined;
  readonly #config: Partial<SwimConfig> | undefined;
  readonly #memberSeedBase: number;
  readonly #byName = new Map<string, SimMember>();
  readonly #members: SimMember[] = [];
  readonly #alive = new AliveMatrix();
  readonly #failures: SimFailure[] = [];
  #listeners: ReadonlyArray<(event: SimEvent) => void> = [];

  constructor(options: SimulationOptions) {
    const seed = options.seed;
    this.seed = seed;
    this.#preset = options.preset;
    this.#config = options.config;
    this.#codec = options.codec;
    this.#ipAddresses = options.addresses === 'ip' ? new Map() : undefined;
    const seeds = createRng(seed);
    this.#memberSeedBase = seeds.nextUint32();
    this.clock = new VirtualClock();
    this.network = new MemoryNetwork({
      scheduler: this.clock,
      seed: seeds.nextUint32(),
      ...(options.latency === undefined ? {} : { latency: options.latency }),
      ...(options.maxPacketBytes === undefined ? {} : { maxPacketBytes: options.maxPacketBytes }),
    });
  }

  /** Virtual time in ms, 0 when the simulation was created. */
  get now(): number {
    return this.clock.now();
  }

  /** Joins and leaves that rejected, in the order they were noticed. */
  get failures(): readonly SimFailure[] {
    return this.#failures;
  }

  /** The transport address of member `name`: where it is now once added (a move changes it), else where it will start. */
  addressOf(name: string): string {
    const added = this.#byName.get(name);
    if (added !== undefined) return added.address;
    const ips = this.#ipAddresses;
    if (ips === undefined) return `${name}:7946`;
    let address = ips.get(name);
    if (address === undefined) {
      const n = ips.size + 1;
      if (n >= 2 ** 24) throw new RangeError(`more than ${2 ** 24 - 1} IP addresses (seed ${this.seed})`);
      address = `10.${n >>> 16}.${(n >>> 8) & 0xff}.${n & 0xff}:7946`;
      ips.set(name, address);
    }
    return address;
  }

  /** Start a member (not joined to anyone yet). Its seed derives from the simulation seed and its name. */
  addMember(name: string, options: SimMemberOptions = {}): Member {
    if (this.#byName.has(name)) throw new Error(`member ${name} already exists (seed ${this.seed})`);
    const address = this.addressOf(name);
    const index = this.#alive.add();
    const { member, clock, transport } = this.#startProcess(name, address, 0, options.config, options.meta);
    const entry: SimMember = { name, index, address, transport, options, member, clock, generation: 0, down: false, crashed: false };
    this.#byName.set(name, entry);
    this.#members.push(entry);
    this.#listen(entry, member);
    return member;
  }

  /**
   * Start a crashed member again as a new process: same name and address, a fresh runtime Member
   * and core (incarnation from the start, an empty member table), and a new seed derived from the
   * simulation seed, the name and the number of restarts. It preloads `options.preload` (if any)
   * and then joins through `options.seeds` (fire-and-forget, as `join`). What the others hold about
   * the member is untouched: to them it is the same member, which must now prove it is alive.
   * `member(name)`, `members()` and `liveMembers()` give the new process from now on; the old one's
   * events are no longer reported. Throws if the member is not crashed.
   */
  restart(name: string, options: RestartOptions = {}): Member {
    const entry = this.#entry(name);
    if (!entry.crashed) throw new Error(`restart: member ${name} has not crashed (seed ${this.seed}); crash it first`);
    const config = options.config === undefined ? entry.options.config : { ...entry.options.config, ...options.config };
    const generation = entry.generation + 1;
    const { member, clock, transport } = this.#startProcess(name, entry.address, generation, config, options.meta ?? entry.options.meta, options.restore);
    entry.member = member;
    entry.transport = transport;
    entry.clock = clock;
    entry.generation = generation;
    entry.crashed = false;
    entry.down = false;
    this.#alive.up(entry.index);
    this.#listen(entry, member);
    // A restored process holds its snapshot's members from its constructor on, before any listener.
    for (const view of member.members()) {
      const known = this.#byName.get(view.name);
      if (known !== undefined && known !== entry) this.#alive.set(entry.index, known.index, view.state === 'alive');
    }
    if (options.preload !== undefined) member.preload(options.preload);
    if (options.seeds !== undefined && options.seeds.length > 0) this.join(name, options.seeds);
    return member;
  }

  /** A new runtime Member at `address` on its own pausable clock. */
  #startProcess(
    name: string,
    address: string,
    generation: number,
    memberConfig: Partial<SwimConfig> | undefined,
    meta: Uint8Array | undefined,
    restore?: MemberSnapshot,
  ): { member: Member; clock: PausableClock; transport: MemoryTransport } {
    const clock = new PausableClock(this.clock);
    const config = this.#config === undefined ? memberConfig : { ...this.#config, ...memberConfig };
    const transport = this.network.transport(address);
    const member = new Member({
      name,
      transport,
      clock,
      seed: this.#memberSeed(generation === 0 ? name : `${name}#${generation}`),
      ...(this.#preset === undefined ? {} : { preset: this.#preset }),
      ...(config === undefined ? {} : { config }),
      ...(meta === undefined ? {} : { meta }),
      ...(this.#codec === undefined ? {} : { codec: this.#codec() }),
      ...(restore === undefined ? {} : { restore }),
    });
    return { member, clock, transport };
  }

  /** Report `member`'s events as `entry`'s while it is the entry's current process. */
  #listen(entry: SimMember, member: Member): void {
    member.addEventListener('change', (event) => {
      if (entry.member === member) this.#onChange(entry, (event as CustomEvent<MembershipChange>).detail);
    });
  }

  /** The member named `name`; throws if there is none. */
  member(name: string): Member {
    return this.#entry(name).member;
  }

  /** Every member ever added, crashed ones included, in the order they were added. */
  members(): Member[] {
    return this.#members.map((m) => m.member);
  }

  /** Members neither crashed nor left. */
  liveMembers(): Member[] {
    return this.#members.filter((m) => !m.down).map((m) => m.member);
  }

  /**
   * `member.join` through `seeds` (member names, or raw addresses for anything that is not a
   * member), fire-and-forget: a rejection is recorded in `failures`.
   */
  join(name: string, seeds: readonly string[]): void {
    const addresses = seeds.map((seed) => this.#byName.get(seed)?.address ?? seed);
    this.member(name)
      .join(addresses)
      .catch((error: unknown) => this.#failures.push({ at: this.now, member: name, action: 'join', error }));
  }

  /** Add members n0..n(n-1) and join n1.. through n0, spread over the first second. Does not run time. */
  startCluster(n: number, options: StartClusterOptions = {}): Member[] {
    const { joinSpreadMs = 1000, ...memberOptions } = options;
    const members: Member[] = [];
    for (let i = 0; i < n; i++) members.push(this.addMember(`n${i}`, memberOptions));
    const start = this.now;
    for (let i = 1; i < n; i++) {
      const name = `n${i}`;
      this.clock.schedule(start + (joinSpreadMs * (i - 1)) / Math.max(1, n - 1), () => this.join(name, ['n0']));
    }
    return members;
  }

  /**
   * Add members n0..n(n-1) as a cluster formed long ago, not through a join storm: each member
   * preloads all the others alive at their own incarnation (`Member.preload`), so the cluster
   * starts converged and quiet, with nothing queued for gossip. Joins would gossip n² updates
   * first (each member re-gossips every peer it learns, memberlist aliveNode), which at thousands
   * of members costs far more than the run itself. Does not run time.
   */
  formCluster(n: number, options: SimMemberOptions = {}): Member[] {
    const members: Member[] = [];
    for (let i = 0; i < n; i++) members.push(this.addMember(`n${i}`, options));
    const entries: PreloadedMember[] = members.map((member) => ({ name: member.name, address: member.address, incarnation: member.incarnation, meta: member.member(member.name)!.meta }));
    for (const member of members) member.preload(entries);
    return members;
  }

  /** Advance virtual time by `ms`, running every timer and delivery due on the way, in order. */
  runFor(ms: number): void {
    this.clock.runFor(ms);
  }

  /**
   * Run until `predicate` holds, checking every `checkEveryMs` of virtual time; returns how long
   * it took. Throws (naming the seed, so the run can be replayed) if `limitMs` passes first.
   */
  runUntil(predicate: () => boolean, limitMs: number, checkEveryMs = 100): number {
    const start = this.now;
    while (!predicate()) {
      const elapsed = this.now - start;
      if (elapsed >= limitMs) {
        throw new Error(`runUntil: condition not met within ${limitMs} ms of virtual time (seed ${this.seed}, t = ${this.now} ms)`);
      }
      this.clock.runFor(Math.min(checkEveryMs, limitMs - elapsed));
    }
    return this.now - start;
  }

  /** Every live member (not crashed, not left) sees every other live member alive. */
  converged(): boolean {
    return this.#alive.converged();
  }

  /** The state `observer` holds about `subject` (undefined if unknown). */
  stateOf(observer: string, subject: string): MemberState | undefined {
    return this.member(observer).member(subject)?.state;
  }

  /** Every live member other than `subject` holds it in `state`. */
  allSee(subject: string, state: MemberState): boolean {
    for (const entry of this.#members) {
      if (entry.down || entry.name === subject) continue;
      if (entry.member.member(subject)?.state !== state) return false;
    }
    return true;
  }

  /**
   * Move a running member to `address` (its transport's `moveTo`): the old address stops
   * receiving, and the member announces the move (docs/design.md, "A member moves"). Partitions,
   * link losses and blackouts name addresses: one set up before the move does not follow the
   * member to its new address unless it names that address too (`network.partition`). Throws if
   * the member crashed or `address` is in use.
   */
  move(name: string, address: string): void {
    const entry = this.#entry(name);
    if (entry.crashed) throw new Error(`move: member ${name} has crashed (seed ${this.seed})`);
    entry.transport.moveTo(address);
    entry.address = address;
  }

  /** Kill -9: no leave message; the member stops and its address stops receiving until a `restart`. */
  crash(name: string): void {
    const entry = this.#entry(name);
    this.#markDown(entry);
    entry.crashed = true;
    this.network.crash(entry.address);
    void entry.member.close();
  }

  /** SIGSTOP: freeze the member's timers and queue everything sent to it. */
  pause(name: string): void {
    const entry = this.#entry(name);
    entry.clock.pause();
    this.network.pause(entry.address);
  }

  /** SIGCONT: hand over what was queued, then run the timers that came due. */
  resume(name: string): void {
    const entry = this.#entry(name);
    this.network.resume(entry.address);
    entry.clock.resume();
  }

  /**
   * A throttled background tab: the member's timers wait (`releaseTimers` runs the ones that came
   * due, as a hidden tab's timer wakes up late), while packets to it are still delivered and handled
   * on arrival, as browsers do not throttle WebSocket message events. Unlike `pause`, nothing queues.
   */
  holdTimers(name: string): void {
    this.#entry(name).clock.pause();
  }

  /** End `holdTimers`: the timers that came due run now. */
  releaseTimers(name: string): void {
    this.#entry(name).clock.resume();
  }

  /** Cut members off as docs/corrections-study.md defines it: timers keep running, packets held, streams hang. */
  blackout(names: readonly string[]): void {
    this.network.blackout(names.map((name) => this.#entry(name).address));
  }

  /** End the blackout of `names` (of everyone when omitted); held packets go out with fresh latency. */
  endBlackout(names?: readonly string[]): void {
    this.network.endBlackout(names?.map((name) => this.#entry(name).address));
  }

  /**
   * Cut every link between two groups of members (by name), in addition to earlier partitions,
   * until `heal()`: packets across are dropped, streams across hang until their timeout.
   */
  partition(groupA: readonly string[], groupB: readonly string[]): void {
    this.network.partition(
      groupA.map((name) => this.#entry(name).address),
      groupB.map((name) => this.#entry(name).address),
    );
  }

  /** Remove every partition. */
  heal(): void {
    this.network.heal();
  }

  /** Lose each packet on every link with probability `p` in [0, 1]; streams are never dropped. */
  setLoss(p: number): void {
    this.network.setLoss(p);
  }

  /** Lose each packet from member `from` to member `to` (one way) with probability `p` in [0, 1]; 0 removes it. */
  setLinkLoss(from: string, to: string, p: number): void {
    this.network.setLinkLoss(this.#entry(from).address, this.#entry(to).address, p);
  }

  /** `member.leave()`, fire-and-forget (a rejection is recorded in `failures`). The member keeps running. */
  leave(name: string): void {
    const entry = this.#entry(name);
    this.#markDown(entry);
    entry.member.leave().catch((error: unknown) => this.#failures.push({ at: this.now, member: name, action: 'leave', error }));
  }

  /** Listen to every membership event of every member; returns a function that stops listening. */
  onEvent(listener: (event: SimEvent) => void): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  #entry(name: string): SimMember {
    const entry = this.#byName.get(name);
    if (entry === undefined) throw new Error(`no member ${name} (seed ${this.seed})`);
    return entry;
  }

  #markDown(entry: SimMember): void {
    if (entry.down) return;
    entry.down = true;
    this.#alive.down(entry.index);
  }

  #onChange(observer: SimMember, change: MembershipChange): void {
    const subject = change.member;
    const known = this.#byName.get(subject.name);
    if (known !== undefined && known !== observer) this.#alive.set(observer.index, known.index, subject.state === 'alive');
    const listeners = this.#listeners;
    if (listeners.length === 0) return;
    const event: SimEvent = {
      at: this.clock.now(),
      observer: observer.name,
      kind: change.event,
      subject: subject.name,
      incarnation: subject.incarnation,
      cause: change.cause,
    };
    for (let i = 0; i < listeners.length; i++) listeners[i]!(event);
  }

  /** FNV-1a of the name mixed with the simulation's base: independent of the order members are added. */
  #memberSeed(name: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < name.length; i++) {
      hash ^= name.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (Math.imul(hash, 0x9e3779b1) ^ this.#memberSeedBase) >>> 0;
  }
}
