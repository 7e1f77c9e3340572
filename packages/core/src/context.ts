import type { SwimConfig } from './config/config.js';
import type { Counters } from './counters.js';
import type { Effect } from './effects.js';
import type { Message } from './codec/messages.js';
import type { WireCodec } from './codec/wire-codec.js';
import { decodeRangePayload, encodeRangePayload, RANGE_FIELDS_VERSION, type ProtocolRange } from './codec/protocol-range.js';
import type { AckPayloadContent } from './codec/ack-payload.js';
import type { Coordinate } from './coordinates/coordinate.js';
import { NetworkCoordinates } from './coordinates/network-coordinates.js';
import type { VivaldiConfig } from './coordinates/vivaldi-config.js';
import { EMPTY_BYTES } from './support/bytes.js';
import { BroadcastQueue } from './dissemination/broadcast-queue.js';
import { retransmitLimit } from './dissemination/retransmit-limit.js';
import { Awareness } from './lifeguard/awareness.js';
import { MemberTable, type MemberId } from './members/member-table.js';
import { phiThresholdDeviations, RttHistory } from './probe/rtt-history.js';
import { DeadlineQueue } from './support/deadline-queue.js';
import type { Rng } from './support/rng.js';

const NO_PARTS: readonly Uint8Array[] = Object.freeze([]);

/** The effects of a call that has emitted none yet: one shared list, frozen, never handed out (see CoreContext.emit). */
const NO_EFFECTS = Object.freeze([]) as unknown as Effect[];

/** Who we are: our id in our own table, our name, which never changes, and our address, which a move changes. */
export interface Self {
  readonly id: MemberId;
  readonly name: string;
  /** Where peers reach us; changed only by the core's `move` input, with our table entry. */
  address: string;
}

/**
 * The state every part of the core shares, and the few primitives they all use to act: emit an
 * effect, send a packet (with piggybacked gossip), queue a broadcast, change local health.
 * Time is `now`, set by the core at the start of every call; nothing here reads a clock.
 */
export class CoreContext {
  readonly table: MemberTable;
  readonly self: Self;
  readonly deadlines = new DeadlineQueue<string>();
  readonly queue = new BroadcastQueue();
  readonly awareness: Awareness;
  /** Direct-ack RTTs per member, kept only when `probeTimeoutMode` is 'adaptive'. */
  readonly rtts: RttHistory;
  /**
   * Effects of the call in progress, {@link NO_EFFECTS} until the first one. The list is made at
   * the first effect of a call, not kept ready between calls: a list waiting for a member's next
   * call outlives young-generation collections, and V8 then allocates every list of that site
   * straight in the old generation (allocation-site pretenuring), at a cost to every call.
   */
  effects: Effect[] = NO_EFFECTS;
  now: number;
  /** We called leave (memberlist hasLeft). */
  leaving = false;
  /**
   * The protocol version of the packet being handled (0 outside one): what we send while handling
   * it is written in no later version, so a member that has not heard of the sender yet (a new
   * member's first ping) still answers it in a version the sender reads.
   */
  inboundPacketVersion = 0;
  /**
   * The payload of our acks without a coordinate: the protocol versions we speak
   * (protocol-range.ts), or none. For stream acks (memberlist's carry no payload, Serf's no
   * coordinate) and acks to strangers.
   */
  readonly bareAckPayload: Uint8Array;
  /** Our Vivaldi coordinate and peers' (Serf's ping delegate); undefined when `coordinates` is off or the codec cannot carry them. */
  readonly coordinates: NetworkCoordinates | undefined;
  /** The payload of our direct acks ({@link ackPayloadTo}), kept while our coordinate is the one it was made from. */
  #ackPayload: Uint8Array | undefined;
  #ackPayloadCoordinate: Coordinate | undefined;
  /** Size of the packet being handled (0 outside a packet): the budget of what we answer a stranger. */
  inboundPacketBytes = 0;
  #seq = 0;
  #requestId = 0;

  constructor(
    readonly config: SwimConfig,
    /** Our own member, the table's first entry (a fresh process starts at incarnation 1: memberlist setAlive). */
    self: { readonly name: string; readonly address: string; readonly meta: Uint8Array },
    readonly rng: Rng,
    readonly counters: Counters,
    now: number,
    /** Every message the member sends or receives goes through it (swimCodec unless the member chose another wire). */
    readonly codec: WireCodec,
    /** Our first incarnation: 1, or above the last one of a previous life restored from a snapshot. */
    incarnation = 1,
    /** Overrides of Serf's Vivaldi config, already validated. */
    vivaldi?: Partial<VivaldiConfig>,
  ) {
    this.now = now;
    this.table = new MemberTable(rng);
    const id = this.table.add(self.name, self.address, self.meta, incarnation, 'alive', now);
    this.table.setProtocol(id, codec.protocol);
    this.bareAckPayload = codec.protocol === undefined ? EMPTY_BYTES : encodeRangePayload(codec.protocol);
    const carriesCoordinates = codec.encodeAckPayload !== undefined && codec.decodeAckPayload !== undefined;
    this.coordinates = config.coordinates && carriesCoordinates ? new NetworkCoordinates(rng, vivaldi, self.name, counters) : undefined;
    this.self = { id, name: self.name, address: self.address };
    this.awareness = new Awareness(config.awarenessMaxMultiplier);
    this.rtts = new RttHistory(config.adaptiveTimeoutWindow, {
      floorMs: config.adaptiveTimeoutFloorMs,
      ceilingMs: config.adaptiveTimeoutCeilingMs,
      deviations: phiThresholdDeviations(config.adaptiveTimeoutPhi),
      minStdDevMs: config.adaptiveTimeoutMinStdDevMs,
      minSamples: config.adaptiveTimeoutMinSamples,
    });
  }

  /**
   * The payload of a direct ack to a ping that came from `address` (memberlist
   * PingDelegate.AckPayload): our protocol range and our coordinate, as the codec writes them,
   * when a gossip target lives there, as for piggybacked gossip; only our range to a stranger,
   * whose 30-byte ping must not buy a 100-byte coordinate (Serf answers anyone with it).
   */
  ackPayloadTo(address: string): Uint8Array {
    return this.coordinates !== undefined && !this.#gossipTargetAt(address) ? this.bareAckPayload : this.#directAckPayload();
  }

  /** Our full ack payload, encoded again only when our coordinate has moved since the last ack. */
  #directAckPayload(): Uint8Array {
    if (this.codec.encodeAckPayload === undefined) return this.bareAckPayload;
    const coordinate = this.coordinates?.coordinate();
    if (this.#ackPayload === undefined || this.#ackPayloadCoordinate !== coordinate) {
      this.#ackPayloadCoordinate = coordinate;
      this.#ackPayload = this.#encodeAckPayload(coordinate);
    }
    return this.#ackPayload;
  }

  #encodeAckPayload(coordinate: Coordinate | undefined): Uint8Array {
    const { codec } = this;
    return codec.encodeAckPayload!({
      ...(codec.protocol === undefined ? {} : { protocol: codec.protocol }),
      ...(coordinate === undefined ? {} : { coordinate }),
    });
  }

  /** What a direct ack's payload says, as the codec reads it (only a range for a codec that reads no more). */
  readAckPayload(payload: Uint8Array): AckPayloadContent {
    const { codec } = this;
    if (codec.decodeAckPayload !== undefined) return codec.decodeAckPayload(payload);
    const protocol = codec.protocol === undefined ? undefined : decodeRangePayload(payload);
    return protocol === undefined ? {} : { protocol };
  }

  emit(effect: Effect): void {
    if (this.effects === NO_EFFECTS) this.effects = [effect];
    else this.effects.push(effect);
  }

  /** The effects of the call that ends, and an empty list for the next. */
  takeEffects(): Effect[] {
    const effects = this.effects;
    if (effects === NO_EFFECTS) return [];
    this.effects = NO_EFFECTS;
    return effects;
  }

  /**
   * The protocol version we write (protocol-range.ts): the newest every live member we hold
   * speaks, a member that announced no range counting as version 1 (0.1.0), never outside our
   * own range. Undefined when the codec has no @swim versions (memberlist's wire).
   */
  get wireVersion(): number | undefined {
    const own = this.codec.protocol;
    if (own === undefined) return undefined;
    return Math.min(own.max, Math.max(own.min, this.table.lowestLiveMax()));
  }

  /**
   * The range members of the cluster we hold all speak: from the highest min to the lowest max
   * among live members, ourselves included; empty (min > max) when two of them share none.
   * Undefined when the codec has no @swim versions.
   */
  clusterRange(): ProtocolRange | undefined {
    if (this.codec.protocol === undefined) return undefined;
    return { min: this.table.highestLiveMin(), max: this.table.lowestLiveMax() };
  }

  /** Whether what we write now carries protocol ranges in alive messages and push-pull entries (version 2 on). */
  get writesRanges(): boolean {
    const version = this.wireVersion;
    return version !== undefined && version >= RANGE_FIELDS_VERSION;
  }

  /**
   * A received alive as we pass it on: without its range (and move) when we write a version before ranges
   * (a member of 0.1.0 would drop the packet), as received otherwise.
   */
  forWire<M extends Message>(message: M): M {
    if (message.type !== 'alive' || message.protocol === undefined || this.writesRanges) return message;
    // The move rides after the range (messages.ts): it goes with it.
    const { protocol: _dropped, movedFrom: _alsoDropped, ...rest } = message;
    return rest as M;
  }

  /** memberlist nextSeqNo: a uint32 that wraps. */
  nextSeq(): number {
    this.#seq = (this.#seq + 1) >>> 0;
    return this.#seq;
  }

  nextRequestId(): number {
    return ++this.#requestId;
  }

  /** memberlist estNumNodes: every entry we hold, ourselves and unreaped dead included. */
  get clusterSize(): number {
    return this.table.size;
  }

  /** Finished-broadcast tokens become effects. */
  reportFinished(tokens: readonly string[]): void {
    // Indexed: usually the shared empty array, on every enqueue and take.
    for (let i = 0; i < tokens.length; i++) this.emit({ type: 'broadcast-finished', token: tokens[i]! });
  }

  /**
   * Queue an encoded message for gossip under an invalidation key (memberlist QueueBroadcast). A
   * message no packet can carry (a peer's update larger than our maxPacketBytes) is dropped and
   * counted, with whatever was queued under its key: memberlist would keep it queued for ever.
   */
  broadcast(key: string, message: Message | Uint8Array, token?: string): void {
    const bytes = message instanceof Uint8Array ? message : this.#encodeForGossip(message);
    // A part queued while we write ranges may carry one (see #partsAt).
    if (!this.#rangedPartsQueued && this.writesRanges) this.#rangedPartsQueued = true;
    if (this.packetBytes(bytes.length) > this.config.maxPacketBytes) {
      this.counters.oversizedBroadcasts++;
      this.reportFinished(this.queue.invalidate(key));
      if (token !== undefined) this.reportFinished([token]);
      return;
    }
    this.reportFinished(this.queue.enqueue(key, bytes, token));
    this.onQueued?.();
  }

  /** The messages of the packet being handled and the index of the one being applied (see {@link broadcast}). */
  inboundMessages: readonly Message[] | undefined = undefined;
  inboundIndex = 0;

  /** An update passed on as it was received is the received bytes when the codec vouches for them (codec receivedPart). */
  #encodeForGossip(message: Message): Uint8Array {
    const inbound = this.inboundMessages;
    if (inbound !== undefined && inbound[this.inboundIndex] === message && this.codec.receivedPart !== undefined) {
      const part = this.codec.receivedPart(inbound, this.inboundIndex);
      if (part !== undefined) return part;
    }
    return this.codec.encodeMessage(message);
  }

  /** Called after every enqueue: the gossip tick, idle while the queue was empty, resumes (Gossiper). */
  onQueued: (() => void) | undefined = undefined;

  /**
   * Whether gossip may go to `member` (memberlist gossip): alive and suspect members, so a suspect
   * hears the accusation and refutes, and members dead for less than gossipToTheDeadMs, so a
   * member wrongly declared dead learns it; never ourselves, nor a member that left.
   */
  isGossipTarget(member: MemberId): boolean {
    if (member === this.self.id) return false;
    switch (this.table.state(member)) {
      case 'alive':
      case 'suspect':
        return true;
      case 'dead':
        return this.now - this.table.stateChangedAt(member) < this.config.gossipToTheDeadMs;
      case 'left':
        return false;
    }
  }

  /**
   * Send `message` and fill the rest of the packet with queued gossip (memberlist sendMsg):
   * every ping, ack, ping-req and nack carries updates up to the byte budget, and up to the
   * decoder's message count. Only to an address where a gossip target lives ({@link isGossipTarget}):
   * a stranger's 30-byte ping must not buy a full packet of gossip (an amplifier), and
   * membership news is for members.
   */
  sendWithGossip(to: string, message: Message): void {
    const { codec } = this;
    if (codec.encodePacketWithParts !== undefined) {
      // The queue check first: most packets go out with nothing queued, and need no address lookup.
      let parts = NO_PARTS;
      if (this.queue.size > 0 && this.#gossipTargetAt(to)) {
        const budget = this.config.maxPacketBytes - this.packetBytes(codec.encodedSize(message));
        const taken = this.queue.take(budget, codec.partOverheadBytes, this.transmitLimit(), codec.maxPartsPerPacket - 1);
        this.reportFinished(taken.finished);
        parts = taken.parts;
      }
      // Written once into the packet, not encoded as a part and then copied into it.
      const version = this.#packetVersion();
      this.#emitPacket(to, codec.encodePacketWithParts(message, this.#partsAt(parts, version), version), parts.length + 1);
      return;
    }
    const primary = codec.encodeMessage(message);
    if (this.queue.size === 0 || !this.#gossipTargetAt(to)) {
      this.sendParts(to, [primary], 1);
      return;
    }
    const budget = this.config.maxPacketBytes - this.packetBytes(primary.length);
    const taken = this.queue.take(budget, codec.partOverheadBytes, this.transmitLimit(), codec.maxPartsPerPacket - 1);
    this.reportFinished(taken.finished);
    if (taken.parts.length === 0) {
      this.sendParts(to, [primary], 1);
    } else {
      taken.parts.unshift(primary);
      this.sendParts(to, taken.parts, taken.parts.length);
    }
  }

  /** Whether a gossip target lives at `address` (a loop: this runs for every probe and ack). */
  #gossipTargetAt(address: string): boolean {
    return this.table.someAt(address, this.#isGossipTarget);
  }

  readonly #isGossipTarget = (member: MemberId): boolean => this.isGossipTarget(member);

  /** Send messages as one packet without piggybacking anything (memberlist rawSendMsgPacket). */
  sendRaw(to: string, messages: readonly Message[]): void {
    this.sendParts(to, messages.map((message) => this.codec.encodeMessage(message)), messages.length);
  }

  /** The most bytes a packet holding one part of `partBytes` takes. */
  packetBytes(partBytes: number): number {
    return this.codec.packetOverheadBytes + this.codec.partOverheadBytes + partBytes;
  }

  /** Send already-encoded parts as one packet. */
  sendParts(to: string, parts: readonly Uint8Array[], messageCount: number): void {
    const version = this.#packetVersion();
    this.#emitPacket(to, this.codec.assemblePacket(this.#partsAt(parts, version), version), messageCount);
  }

  /** The version a packet we send now is written in: {@link wireVersion}, no later than the packet being handled. */
  #packetVersion(): number | undefined {
    const version = this.wireVersion;
    const inbound = this.inboundPacketVersion;
    return version === undefined || inbound === 0 ? version : Math.min(version, inbound);
  }

  /**
   * Queued parts as protocol `version` writes them: an alive queued with its range while we wrote
   * version 2 loses it once a member of 0.1.0 is among us (codec partAtVersion). Unchanged when
   * the codec has nothing to change, which is nearly always (a two-byte check per part).
   */
  #partsAt(parts: readonly Uint8Array[], version: number | undefined): readonly Uint8Array[] {
    const { codec } = this;
    if (!this.#rangedPartsQueued || version === undefined || version >= RANGE_FIELDS_VERSION || codec.partAtVersion === undefined) return parts;
    if (this.queue.size === 0) this.#rangedPartsQueued = false;
    let changed: Uint8Array[] | undefined;
    for (let i = 0; i < parts.length; i++) {
      const part = codec.partAtVersion(parts[i]!, version);
      if (part === parts[i]) continue;
      changed ??= parts.slice();
      changed[i] = part;
    }
    return changed ?? parts;
  }

  /**
   * Whether a part queued since the queue was last empty may carry a range: set when we queue
   * while writing version 2 or later, so a cluster that never did (one with a 0.1.0 member from
   * the start) never pays for #partsAt's look at each part.
   */
  #rangedPartsQueued = false;

  /** One stream request or reply in protocol `version` (ours when omitted): see {@link wireVersion}. */
  encodeStream(message: Message, version: number | undefined = this.wireVersion): Uint8Array {
    return this.codec.encodeStream(message, version);
  }

  #emitPacket(to: string, bytes: Uint8Array, messageCount: number): void {
    this.counters.packetsOut++;
    this.counters.messagesOut += messageCount;
    this.counters.bytesOut += bytes.length;
    this.emit({ type: 'send-packet', to, bytes });
  }

  /** memberlist retransmitLimit with the current cluster size. */
  transmitLimit(): number {
    return retransmitLimit(this.config.retransmitMult, this.clusterSize);
  }

  /** Apply a health delta (Lifeguard LHM) and report a change. */
  applyHealthDelta(delta: number): void {
    const previous = this.awareness.score;
    if (this.awareness.applyDelta(delta)) {
      this.emit({ type: 'health', score: this.awareness.score, previous });
    }
  }

  /**
   * True when some member other than us is neither dead nor left, suspects included (memberlist
   * anyAlive): someone may still hear an announcement, so its spreading is worth waiting for.
   */
  anyOtherUp(): boolean {
    const { table } = this;
    const members = table.all();
    for (let i = 0; i < members.length; i++) {
      const member = members[i]!;
      if (member !== this.self.id && !table.isDown(member)) return true;
    }
    return false;
  }
}
