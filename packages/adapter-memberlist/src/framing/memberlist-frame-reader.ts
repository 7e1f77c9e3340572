import { DecodeFailure } from '../codec/decode-failure.js';
import { MSG } from '../codec/message-types.js';
import { MsgpackReader } from '../codec/msgpack-reader.js';
import type { ByteBudget, FrameReadResult, StreamFrameReader } from './stream-framing.js';

/** What follows a run of msgpack values. */
const enum Then {
  /** The frame ends with the run. */
  End,
  /** A push-pull header just ended: read Nodes entries, then UserStateLen raw bytes. */
  PushPullHeader,
  /** A user message header just ended: read UserMsgLen raw bytes. */
  UserHeader,
  /** The push-pull entries ended: read the user state's raw bytes. */
  UserState,
}

const enum Phase {
  Type,
  /** `[10]`: the 4-byte length of the encrypted blob. */
  EncryptedLength,
  Values,
  Raw,
}

/** Bytes after the token of float32, float64, uint8..64, int8..64 (tokens 0xca..0xd3). */
const NUMBER_BYTES = [4, 8, 1, 2, 4, 8, 1, 2, 4, 8];

const UINT32_MAX = 0xffff_ffff;

/**
 * Finds where one memberlist stream message ends (memberlist readStream / readRemoteState /
 * readUserMsg), since memberlist streams carry no length prefix: `[10][u32 n][n bytes]`
 * (encrypted), `[9]` and one msgpack value (compressed), `[6]` a header, `Nodes` values and
 * `UserStateLen` raw bytes (push-pull), `[8]` a header and `UserMsgLen` raw bytes (user message),
 * `[0]`, `[2]`, `[11]`, `[13]` one msgpack value. Anything else is 'malformed' (a label header of
 * memberlist >= 0.3 among them).
 *
 * The scan is incremental: it keeps its place between chunks (values still to skip, raw bytes
 * still to pass, a token header not yet whole), so every byte is looked at once however the
 * bytes are cut: a peer trickling one byte per segment costs O(bytes), not O(bytes²). Only a
 * finished push-pull or user header is read again, once, to learn the lengths it announces.
 * Bytes are reserved from the budget as they are buffered, and given back when their frame is
 * handed out (or on discard); a frame that is or announces more than `maxFrameBytes` is refused.
 */
export class MemberlistFrameReader implements StreamFrameReader {
  readonly #maxFrameBytes: number;
  readonly #budget: ByteBudget;
  #buffer = new Uint8Array(256);
  /** Bytes held: the frame being read, and after a frame's end, the start of the next one. */
  #fill = 0;
  /** Where the scan is in `#buffer`. */
  #at = 0;
  #failed: 'oversize' | 'over-budget' | 'malformed' | undefined;
  #steps = 0;

  #phase = Phase.Type;
  #then = Then.End;
  /** Values left in the current run (containers add their elements). */
  #pending = 0;
  /** Raw bytes left to pass (a string's, a number's, the user state...). */
  #raw = 0;
  /** Where the header being scanned starts. */
  #headerStart = 0;
  /** A push-pull's UserStateLen, passed after its entries. */
  #userStateLength = 0;

  constructor(maxFrameBytes: number, budget: ByteBudget) {
    this.#maxFrameBytes = maxFrameBytes;
    this.#budget = budget;
  }

  get buffered(): number {
    return this.#fill;
  }

  get reserved(): number {
    return this.#fill;
  }

  /** Scan steps so far (tokens, raw runs and header bytes read): for tests of the linear cost. */
  get parseSteps(): number {
    return this.#steps;
  }

  push(chunk: Uint8Array): FrameReadResult {
    if (this.#failed !== undefined) return this.#failed;
    if (chunk.length === 0) return [];
    if (!this.#budget.reserve(chunk.length)) return this.#fail('over-budget');
    this.#append(chunk);
    const frames: Uint8Array[] = [];
    for (;;) {
      const outcome = this.#scan();
      if (typeof outcome === 'string') return this.#fail(outcome);
      if (!outcome) break;
      // A frame ends at #at: hand it out, keep what follows for the next one.
      const length = this.#at;
      frames.push(this.#buffer.slice(0, length));
      this.#buffer.copyWithin(0, length, this.#fill);
      this.#fill -= length;
      this.#at = 0;
      this.#budget.release(length);
      this.#phase = Phase.Type;
    }
    if (this.#fill > this.#maxFrameBytes) return this.#fail('oversize');
    return frames;
  }

  discard(): void {
    if (this.#fill > 0) this.#budget.release(this.#fill);
    this.#fill = 0;
    this.#at = 0;
    this.#phase = Phase.Type;
  }

  #fail(reason: 'oversize' | 'over-budget' | 'malformed'): FrameReadResult {
    this.discard();
    this.#failed = reason;
    return reason;
  }

  #append(chunk: Uint8Array): void {
    const needed = this.#fill + chunk.length;
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
      grown.set(this.#buffer.subarray(0, this.#fill));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#fill);
    this.#fill = needed;
  }

  /** Scan on from #at: true when a frame ended (at #at), false when more bytes are needed, or a refusal. */
  #scan(): boolean | 'oversize' | 'malformed' {
    const bytes = this.#buffer;
    for (;;) {
      const available = this.#fill - this.#at;
      switch (this.#phase) {
        case Phase.Type: {
          if (available === 0) return false;
          this.#steps++;
          const type = bytes[this.#at++]!;
          switch (type) {
            case MSG.encrypt:
              this.#phase = Phase.EncryptedLength;
              break;
            case MSG.compress:
            case MSG.ping:
            case MSG.ack:
            case MSG.nack:
            case MSG.err:
              this.#values(1, Then.End);
              break;
            case MSG.pushPull:
              this.#values(1, Then.PushPullHeader);
              break;
            case MSG.user:
              this.#values(1, Then.UserHeader);
              break;
            default:
              return 'malformed';
          }
          break;
        }
        case Phase.EncryptedLength: {
          if (available < 4) return false;
          this.#steps++;
          const length = readUint32(bytes, this.#at);
          this.#at += 4;
          if (!this.#rawThenEnd(length)) return 'oversize';
          break;
        }
        case Phase.Raw:
          return this.#passRaw();
        case Phase.Values: {
          const outcome = this.#scanValues();
          if (outcome !== true) return outcome;
          const next = this.#afterValues();
          if (next === true) return true;
          if (next !== undefined) return next;
          break;
        }
      }
    }
  }

  #values(count: number, then: Then): void {
    this.#phase = Phase.Values;
    this.#pending = count;
    this.#raw = 0;
    this.#then = then;
    this.#headerStart = this.#at;
  }

  /** Pass `length` raw bytes, then the frame ends; false when the frame would be too big. */
  #rawThenEnd(length: number): boolean {
    if (this.#at + length > this.#maxFrameBytes) return false;
    this.#phase = Phase.Raw;
    this.#raw = length;
    return true;
  }

  /** Pass what is buffered of the #raw bytes still owed: true when none are left, false when more bytes are needed. */
  #passRaw(): boolean {
    if (this.#raw === 0) return true;
    const available = this.#fill - this.#at;
    if (available === 0) return false;
    this.#steps++;
    const n = Math.min(this.#raw, available);
    this.#at += n;
    this.#raw -= n;
    return this.#raw === 0;
  }

  /** Skip values until the run is done (true), more bytes are needed (false), or a refusal. */
  #scanValues(): boolean | 'oversize' | 'malformed' {
    const bytes = this.#buffer;
    const fill = this.#fill;
    for (;;) {
      if (!this.#passRaw()) return false;
      if (this.#pending === 0) return true;
      if (this.#at >= fill) return false;
      this.#steps++;
      const token = bytes[this.#at]!;
      // A token is taken whole with its length bytes (at most 4): wait for them if cut.
      let header = 1;
      let raw = 0;
      let values = 0;
      if (token <= 0x7f || token >= 0xe0 || token === 0xc0 || token === 0xc2 || token === 0xc3) {
        // a value of its own
      } else if (token <= 0x8f) values = 2 * (token & 0x0f);
      else if (token <= 0x9f) values = token & 0x0f;
      else if (token <= 0xbf) raw = token & 0x1f;
      else if (token >= 0xca && token <= 0xd3) raw = NUMBER_BYTES[token - 0xca]!;
      else if (token >= 0xd4 && token <= 0xd8) raw = 1 + (1 << (token - 0xd4));
      else {
        const width = LENGTH_WIDTH[token];
        if (width === undefined) return 'malformed';
        header = 1 + width;
        if (fill - this.#at < header) return false;
        const length = width === 1 ? bytes[this.#at + 1]! : width === 2 ? (bytes[this.#at + 1]! << 8) | bytes[this.#at + 2]! : readUint32(bytes, this.#at + 1);
        if (token === 0xdc || token === 0xdd) values = length;
        else if (token === 0xde || token === 0xdf) values = 2 * length;
        else if (token >= 0xc7 && token <= 0xc9) raw = length + 1;
        else raw = length;
      }
      this.#at += header;
      this.#pending += values - 1;
      this.#raw = raw;
      // Every value takes at least a byte: a count or length past maxFrameBytes cannot fit.
      if (this.#at + this.#raw + this.#pending > this.#maxFrameBytes) return 'oversize';
    }
  }

  /** A run of values ended: the frame ends, or a header tells what comes next (true / undefined to go on / a refusal). */
  #afterValues(): true | undefined | 'oversize' | 'malformed' {
    switch (this.#then) {
      case Then.End:
        return true;
      case Then.PushPullHeader: {
        const header = this.#readHeader(['Nodes', 'UserStateLen']);
        if (header === undefined) return 'malformed';
        const nodes = header[0]!;
        const userStateLength = header[1]!;
        if (this.#at + nodes + userStateLength > this.#maxFrameBytes) return 'oversize';
        this.#values(nodes, Then.UserState);
        this.#raw = 0;
        this.#userStateLength = userStateLength;
        return undefined;
      }
      case Then.UserHeader: {
        const header = this.#readHeader(['UserMsgLen']);
        if (header === undefined) return 'malformed';
        return this.#rawThenEnd(header[0]!) ? undefined : 'oversize';
      }
      case Then.UserState:
        return this.#rawThenEnd(this.#userStateLength) ? undefined : 'oversize';
    }
  }

  /** The integer fields `keys` of the header just scanned (0 when absent), read once; undefined when it is no such header. */
  #readHeader(keys: readonly string[]): number[] | undefined {
    this.#steps += this.#at - this.#headerStart;
    const values = keys.map(() => 0);
    try {
      const reader = new MsgpackReader(this.#buffer, this.#headerStart, this.#at);
      for (let n = reader.mapHeader('header'); n > 0; n--) {
        const index = keys.indexOf(reader.key());
        if (index >= 0) values[index] = reader.uint(keys[index]!, UINT32_MAX);
        else reader.skip();
      }
    } catch (failure) {
      if (failure instanceof DecodeFailure) return undefined;
      throw failure;
    }
    return values;
  }
}

/** Bytes of the length after str8/16/32, bin8/16/32, ext8/16/32, array16/32, map16/32 tokens. */
const LENGTH_WIDTH: Readonly<Record<number, number>> = {
  0xc4: 1,
  0xc5: 2,
  0xc6: 4,
  0xc7: 1,
  0xc8: 2,
  0xc9: 4,
  0xd9: 1,
  0xda: 2,
  0xdb: 4,
  0xdc: 2,
  0xdd: 4,
  0xde: 2,
  0xdf: 4,
};

function readUint32(bytes: Uint8Array, at: number): number {
  return bytes[at]! * 0x100_0000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
}
