import { MEMBER_STATES } from '../members/member.js';
import { DecodeFailure } from './decode-error.js';
import type { Message, MessageType, PushPullEntry } from './messages.js';
import { MsgpackReader } from './msgpack-reader.js';
import { MAX_PROTOCOL_VERSION, type ProtocolRange } from './protocol-range.js';
import {
  ALIVE_WITH_MOVE_ARITY,
  ALIVE_WITH_RANGE_ARITY,
  ENTRY_WITH_MOVE_ARITY,
  ENTRY_WITH_RANGE_ARITY,
  MAX_ADDRESS_BYTES,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_KEY_BYTES,
  MAX_NAME_BYTES,
  MAX_UINT32,
  MESSAGE_ARITY,
  MESSAGE_TYPE_CODES,
  PUSH_PULL_ENTRY_ARITY,
} from './wire-schema.js';
import { findUpdate, keepUpdate, lastHitCanonical, MAX_CACHED_UPDATE_BYTES } from './update-cache.js';

/** Message type by wire code; codes are dense from 0. */
const TYPE_BY_CODE: readonly MessageType[] = (() => {
  const types: MessageType[] = [];
  for (const [type, code] of Object.entries(MESSAGE_TYPE_CODES)) types[code] = type as MessageType;
  return types;
})();

/** Array elements by wire code (an array load, not a keyed property lookup per message). */
const ARITY_BY_CODE: readonly number[] = TYPE_BY_CODE.map((type) => MESSAGE_ARITY[type]);

const SUSPECT = MESSAGE_TYPE_CODES.suspect;
const ALIVE = MESSAGE_TYPE_CODES.alive;
const DEAD = MESSAGE_TYPE_CODES.dead;

const UINT32 = 'a uint32';
const STATE = `a member state 0..${MEMBER_STATES.length - 1}`;
const PROTOCOL_VERSION_KIND = `a protocol version 1..${MAX_PROTOCOL_VERSION}`;

/**
 * Where each message of a packet sits in it, by index (`maxMessages` entries at least), and
 * whether its bytes are canonical: exactly what encoding the decoded message writes.
 */
export interface MessageSpans {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly canonical: Uint8Array;
}

/** What {@link readMessages} read besides the messages it returns. */
export interface ReadCounts {
  /** Messages of a type this version does not know (a later version's), skipped whole. */
  skipped: number;
}

/**
 * Read every message of `bytes` from `start` to the end, at most `maxMessages` of them (skipped
 * ones included), noting where each one was in `spans` if given and how many were skipped in
 * `counts`. Forward compatible (docs/compatibility.md): a message of a type code this version
 * does not know is skipped, and a message with more fields than this version knows is read
 * with the extra fields skipped; anything else wrong rejects the whole packet. Throws a
 * {@link DecodeFailure} whose detail names the part (counted from 1) and its type.
 */
export function readMessages(
  bytes: Uint8Array,
  start: number,
  maxMessages: number,
  maxPushPullEntries = Infinity,
  spans?: MessageSpans,
  counts?: ReadCounts,
): Message[] {
  const reader = new MsgpackReader(bytes, start);
  const messages: Message[] = [];
  let skipped = 0;
  let type: MessageType | undefined;
  try {
    while (!reader.atEnd) {
      if (messages.length + skipped === maxMessages) {
        throw new DecodeFailure('too-many', `more than ${maxMessages} messages`);
      }
      type = undefined;
      const from = reader.position;
      reader.canonical = true;
      const length = reader.readMessageLength();
      if (length === 0) throw new DecodeFailure('malformed', 'a message array with no type code');
      const code = reader.readTypeCode();
      type = TYPE_BY_CODE[code];
      if (type === undefined) {
        // Codes only grow: a negative one was never a message type, a new one is a later version's.
        if (code < 0) throw new DecodeFailure('unknown-type', `unknown message type code ${code}`);
        reader.skipValues(length - 1, `message type ${code}`);
        skipped++;
        continue;
      }
      let arity = ARITY_BY_CODE[code]!;
      if (length < arity) {
        throw new DecodeFailure('malformed', `expected at least ${arity} array elements, got ${length}`);
      }
      // An alive of protocol version 2 or later carries its member's protocol range after the meta,
      // and after it the address the member moved from, if it moved.
      const withRange = code === ALIVE && length >= ALIVE_WITH_RANGE_ARITY;
      const withMove = code === ALIVE && length >= ALIVE_WITH_MOVE_ARITY;
      if (withRange) arity = withMove ? ALIVE_WITH_MOVE_ARITY : ALIVE_WITH_RANGE_ARITY;
      // A membership update decoded before, byte for byte, is the message decoded then (update-cache.ts).
      const end = code === SUSPECT || code === ALIVE || code === DEAD ? updateEnd(bytes, reader.position, code === ALIVE, withRange, withMove) : -1;
      let message = end >= 0 && end - from <= MAX_CACHED_UPDATE_BYTES ? findUpdate(bytes, from, end) : undefined;
      if (message !== undefined) {
        reader.canonical = lastHitCanonical();
        reader.skipTo(end);
      } else {
        message = readFields(reader, type, maxPushPullEntries, withRange, withMove);
        if (end >= 0 && reader.position === end && end - from <= MAX_CACHED_UPDATE_BYTES) keepUpdate(message, reader.canonical);
      }
      // Fields a later version added after the ones this version knows.
      if (length > arity) reader.skipValues(length - arity, `${type} fields after the first ${arity}`);
      if (spans !== undefined) {
        const index = messages.length;
        spans.starts[index] = from;
        spans.ends[index] = reader.position;
        spans.canonical[index] = reader.canonical ? 1 : 0;
      }
      messages.push(message);
    }
  } catch (failure) {
    if (!(failure instanceof DecodeFailure) || failure.code === 'too-many') throw failure;
    const part = type === undefined ? `part ${messages.length + skipped + 1}` : `part ${messages.length + skipped + 1} (${type})`;
    throw new DecodeFailure(failure.code, `${part}: ${failure.detail}`);
  }
  if (counts !== undefined) counts.skipped = skipped;
  return messages;
}

/**
 * Where the fields of a suspect or dead (incarnation, node, from) or of an alive (incarnation,
 * node, address, meta, then range and move if present) starting at `at` end, from their headers alone; -1 for a form an update
 * small enough to cache never takes (a wide header, a signed or float integer) or bytes that run
 * out. Only finds the span: the fields are checked when first decoded.
 */
function updateEnd(bytes: Uint8Array, at: number, alive: boolean, withRange: boolean, withMove: boolean): number {
  at = skipUint(bytes, at);
  if (at < 0) return -1;
  at = skipShortStr(bytes, at);
  if (at < 0) return -1;
  at = skipShortStr(bytes, at);
  if (at >= 0 && alive) at = skipShortBin(bytes, at);
  if (at >= 0 && withRange) at = skipUint(bytes, at);
  if (at >= 0 && withRange) at = skipUint(bytes, at);
  if (at >= 0 && withMove) at = skipShortStr(bytes, at);
  return at <= bytes.length ? at : -1;
}

function skipUint(bytes: Uint8Array, at: number): number {
  const token = bytes[at];
  if (token === undefined) return -1;
  if (token < 0x80) return at + 1;
  if (token === 0xcc) return at + 2;
  if (token === 0xcd) return at + 3;
  if (token === 0xce) return at + 5;
  return -1;
}

function skipShortStr(bytes: Uint8Array, at: number): number {
  const token = bytes[at];
  if (token === undefined) return -1;
  if (token >= 0xa0 && token <= 0xbf) return at + 1 + (token & 0x1f);
  if (token === 0xd9 && at + 1 < bytes.length) return at + 2 + bytes[at + 1]!;
  return -1;
}

function skipShortBin(bytes: Uint8Array, at: number): number {
  if (bytes[at] === 0xc4 && at + 1 < bytes.length) return at + 2 + bytes[at + 1]!;
  return -1;
}

/** The fields after the type code, in the order of messages.ts. */
function readFields(reader: MsgpackReader, type: MessageType, maxPushPullEntries: number, withRange: boolean, withMove: boolean): Message {
  switch (type) {
    case 'ping': {
      const seq = reader.readUint('seq', MAX_UINT32, UINT32);
      const target = readName(reader, 'target');
      const sourceName = readName(reader, 'sourceName');
      const sourceAddress = readSourceAddress(reader);
      return { type, seq, target, sourceName, sourceAddress };
    }
    case 'ping-req': {
      const seq = reader.readUint('seq', MAX_UINT32, UINT32);
      const target = readName(reader, 'target');
      const targetAddress = readAddress(reader, 'targetAddress');
      const nack = reader.readBool('nack');
      const sourceName = readName(reader, 'sourceName');
      const sourceAddress = readSourceAddress(reader);
      return { type, seq, target, targetAddress, nack, sourceName, sourceAddress };
    }
    case 'ack': {
      const seq = reader.readUint('seq', MAX_UINT32, UINT32);
      const payload = reader.readBin('payload');
      return { type, seq, payload };
    }
    case 'nack': {
      const seq = reader.readUint('seq', MAX_UINT32, UINT32);
      return { type, seq };
    }
    case 'suspect':
    case 'dead': {
      const incarnation = reader.readUint('incarnation', MAX_UINT32, UINT32);
      const node = readName(reader, 'node');
      const from = readName(reader, 'from');
      return { type, incarnation, node, from };
    }
    case 'alive': {
      const incarnation = reader.readUint('incarnation', MAX_UINT32, UINT32);
      const node = readName(reader, 'node');
      const address = readAddress(reader, 'address');
      const meta = reader.readBin('meta');
      if (!withRange) return { type, incarnation, node, address, meta };
      const protocol = readRange(reader);
      const movedFrom = withMove ? readMovedFrom(reader) : undefined;
      return movedFrom === undefined ? { type, incarnation, node, address, meta, protocol } : { type, incarnation, node, address, meta, protocol, movedFrom };
    }
    case 'push-pull': {
      const join = reader.readBool('join');
      const count = reader.readArrayHeader('members');
      if (count > maxPushPullEntries) throw new DecodeFailure('too-many', `a push-pull of ${count} entries; at most ${maxPushPullEntries}`);
      const members: PushPullEntry[] = [];
      for (let i = 0; i < count; i++) members.push(readEntry(reader, i));
      const userState = reader.readBin('userState');
      return { type, join, members, userState };
    }
    case 'broadcast': {
      const key = reader.readString('key', MAX_KEY_BYTES);
      const origin = readName(reader, 'origin');
      const version = reader.readUint('version', Number.MAX_SAFE_INTEGER, 'a non-negative safe integer');
      const payload = reader.readBin('payload');
      return { type, key, origin, version, payload };
    }
    case 'user': {
      const from = readName(reader, 'from');
      const payload = reader.readBin('payload');
      return { type, from, payload };
    }
    case 'error': {
      // At most three UTF-8 bytes per UTF-16 unit; the exact bound is checked on the text.
      const message = reader.readString('message', MAX_ERROR_MESSAGE_CHARS * 3);
      if (message.length > MAX_ERROR_MESSAGE_CHARS) {
        throw new DecodeFailure(
          'invalid-field',
          `field 'message' must be at most ${MAX_ERROR_MESSAGE_CHARS} characters, got ${message.length}`,
        );
      }
      return { type, message };
    }
  }
}

function readEntry(reader: MsgpackReader, index: number): PushPullEntry {
  try {
    const length = reader.readArrayHeader('entry');
    if (length < PUSH_PULL_ENTRY_ARITY) {
      throw new DecodeFailure('invalid-field', `an entry must have at least ${PUSH_PULL_ENTRY_ARITY} elements, got ${length}`);
    }
    const name = readName(reader, 'name');
    const address = readAddress(reader, 'address');
    const meta = reader.readBin('meta');
    const incarnation = reader.readUint('incarnation', MAX_UINT32, UINT32);
    const state = MEMBER_STATES[reader.readUint('state', MEMBER_STATES.length - 1, STATE)]!;
    if (length < ENTRY_WITH_RANGE_ARITY) {
      // Entry fields a later version added.
      if (length > PUSH_PULL_ENTRY_ARITY) reader.skipValues(length - PUSH_PULL_ENTRY_ARITY, 'entry fields after the first 5');
      return { name, address, meta, incarnation, state };
    }
    const protocol = readRange(reader);
    if (length < ENTRY_WITH_MOVE_ARITY) return { name, address, meta, incarnation, state, protocol };
    const movedFrom = readMovedFrom(reader);
    if (length > ENTRY_WITH_MOVE_ARITY) reader.skipValues(length - ENTRY_WITH_MOVE_ARITY, 'entry fields after the first 8');
    return movedFrom === undefined ? { name, address, meta, incarnation, state, protocol } : { name, address, meta, incarnation, state, protocol, movedFrom };
  } catch (failure) {
    if (!(failure instanceof DecodeFailure)) throw failure;
    throw new DecodeFailure(failure.code, `members[${index}]: ${failure.detail}`);
  }
}

/** A protocol range's two fields (protocol-range.ts): 1 ≤ min ≤ max ≤ 255. */
function readRange(reader: MsgpackReader): ProtocolRange {
  const min = reader.readUint('protocol.min', MAX_PROTOCOL_VERSION, PROTOCOL_VERSION_KIND);
  const max = reader.readUint('protocol.max', MAX_PROTOCOL_VERSION, PROTOCOL_VERSION_KIND);
  if (min < 1 || max < min) {
    throw new DecodeFailure('invalid-field', `field 'protocol' must satisfy 1 <= min <= max, got ${min}-${max}`);
  }
  return { min, max };
}

/** The address a member moved from (an address), or nil: no move, written by a later version to reach a field after it. */
function readMovedFrom(reader: MsgpackReader): string | undefined {
  return reader.readNil() ? undefined : readAddress(reader, 'movedFrom');
}

/** A member name: 1 to MAX_NAME_BYTES bytes. An empty one would be a member nobody can name. */
function readName(reader: MsgpackReader, field: string): string {
  return nonEmpty(field, reader.readString(field, MAX_NAME_BYTES));
}

/** An address to send to: 1 to MAX_ADDRESS_BYTES bytes. */
function readAddress(reader: MsgpackReader, field: string): string {
  return nonEmpty(field, reader.readString(field, MAX_ADDRESS_BYTES));
}

/** A ping's or ping-req's sourceAddress: empty means "answer the packet's source" (prober.ts). */
function readSourceAddress(reader: MsgpackReader): string {
  return reader.readString('sourceAddress', MAX_ADDRESS_BYTES);
}

function nonEmpty(field: string, value: string): string {
  if (value.length === 0) throw new DecodeFailure('invalid-field', `field '${field}' must not be empty`);
  return value;
}
