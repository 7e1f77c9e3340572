import { MEMBER_STATES, type MemberState } from '../members/member.js';
import type { Message, MessageType, PushPullEntry } from './messages.js';
import type { MsgpackWriter } from './msgpack-writer.js';
import { protocolRangeProblem, type ProtocolRange } from './protocol-range.js';
import {
  ALIVE_WITH_MOVE_ARITY,
  ALIVE_WITH_RANGE_ARITY,
  ENTRY_WITH_MOVE_ARITY,
  ENTRY_WITH_RANGE_ARITY,
  MAX_ADDRESS_BYTES,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_KEY_BYTES,
  MAX_NAME_BYTES,
  MESSAGE_ARITY,
  MESSAGE_TYPE_CODES,
  PUSH_PULL_ENTRY_ARITY,
} from './wire-schema.js';

/**
 * Append `message` as its msgpack array `[typeCode, ...fields]`.
 *
 * Throws a RangeError or TypeError for a message the decoder would reject (an incarnation out of
 * uint32, an empty name, a name over MAX_NAME_BYTES, a lone surrogate...): it fails here, at its source, instead of
 * making every receiver drop the whole compound packet it rode in.
 */
export function writeMessage(writer: MsgpackWriter, message: Message): void {
  switch (message.type) {
    case 'ping':
      writeHeader(writer, 'ping');
      writeUint32(writer, message.seq, 'ping', 'seq');
      writeName(writer, message.target, 'ping', 'target');
      writeName(writer, message.sourceName, 'ping', 'sourceName');
      writeString(writer, message.sourceAddress, SOURCE_ADDRESS, 'ping', 'sourceAddress');
      return;
    case 'ping-req':
      writeHeader(writer, 'ping-req');
      writeUint32(writer, message.seq, 'ping-req', 'seq');
      writeName(writer, message.target, 'ping-req', 'target');
      writeString(writer, message.targetAddress, ADDRESS, 'ping-req', 'targetAddress');
      writeBool(writer, message.nack, 'ping-req', 'nack');
      writeName(writer, message.sourceName, 'ping-req', 'sourceName');
      writeString(writer, message.sourceAddress, SOURCE_ADDRESS, 'ping-req', 'sourceAddress');
      return;
    case 'ack':
      writeHeader(writer, 'ack');
      writeUint32(writer, message.seq, 'ack', 'seq');
      writeBytes(writer, message.payload, 'ack', 'payload');
      return;
    case 'nack':
      writeHeader(writer, 'nack');
      writeUint32(writer, message.seq, 'nack', 'seq');
      return;
    case 'suspect':
    case 'dead':
      writeHeader(writer, message.type);
      writeUint32(writer, message.incarnation, message.type, 'incarnation');
      writeName(writer, message.node, message.type, 'node');
      writeName(writer, message.from, message.type, 'from');
      return;
    case 'alive':
      if (message.protocol === undefined) {
        writeHeader(writer, 'alive');
      } else {
        // The move rides after the range, so only with one (messages.ts AliveMessage.movedFrom).
        writer.arrayHeader(message.movedFrom === undefined ? ALIVE_WITH_RANGE_ARITY : ALIVE_WITH_MOVE_ARITY);
        writer.uint(MESSAGE_TYPE_CODES.alive);
      }
      writeUint32(writer, message.incarnation, 'alive', 'incarnation');
      writeName(writer, message.node, 'alive', 'node');
      writeString(writer, message.address, ADDRESS, 'alive', 'address');
      writeBytes(writer, message.meta, 'alive', 'meta');
      if (message.protocol !== undefined) {
        writeRange(writer, message.protocol, 'alive', 'protocol');
        if (message.movedFrom !== undefined) writeString(writer, message.movedFrom, ADDRESS, 'alive', 'movedFrom');
      }
      return;
    case 'push-pull':
      writeHeader(writer, 'push-pull');
      writeBool(writer, message.join, 'push-pull', 'join');
      if (!Array.isArray(message.members)) rejectType('push-pull', 'members', 'must be an array', message.members);
      writer.arrayHeader(message.members.length);
      for (const entry of message.members) writeEntry(writer, entry);
      writeBytes(writer, message.userState, 'push-pull', 'userState');
      return;
    case 'broadcast':
      writeHeader(writer, 'broadcast');
      writeString(writer, message.key, KEY, 'broadcast', 'key');
      writeName(writer, message.origin, 'broadcast', 'origin');
      if (!Number.isSafeInteger(message.version) || message.version < 0) {
        rejectRange('broadcast', 'version', 'must be a non-negative safe integer', message.version);
      }
      writer.uint(message.version);
      writeBytes(writer, message.payload, 'broadcast', 'payload');
      return;
    case 'user':
      writeHeader(writer, 'user');
      writeName(writer, message.from, 'user', 'from');
      writeBytes(writer, message.payload, 'user', 'payload');
      return;
    case 'error':
      writeHeader(writer, 'error');
      writeErrorText(writer, message.message);
      return;
    default:
      throw new TypeError(`cannot encode a message of unknown type ${describe((message as { type?: unknown }).type)}`);
  }
}

function writeHeader(writer: MsgpackWriter, type: MessageType): void {
  writer.arrayHeader(MESSAGE_ARITY[type]);
  writer.uint(MESSAGE_TYPE_CODES[type]);
}

function writeEntry(writer: MsgpackWriter, entry: PushPullEntry): void {
  const moved = entry.protocol !== undefined && entry.movedFrom !== undefined;
  writer.arrayHeader(entry.protocol === undefined ? PUSH_PULL_ENTRY_ARITY : moved ? ENTRY_WITH_MOVE_ARITY : ENTRY_WITH_RANGE_ARITY);
  writeName(writer, entry.name, 'push-pull', 'members.name');
  writeString(writer, entry.address, ADDRESS, 'push-pull', 'members.address');
  writeBytes(writer, entry.meta, 'push-pull', 'members.meta');
  writeUint32(writer, entry.incarnation, 'push-pull', 'members.incarnation');
  writer.uint(stateCode(entry.state));
  if (entry.protocol !== undefined) writeRange(writer, entry.protocol, 'push-pull', 'members.protocol');
  if (moved) writeString(writer, entry.movedFrom!, ADDRESS, 'push-pull', 'members.movedFrom');
}

/** A protocol range as its two trailing fields, min then max (protocol-range.ts). */
function writeRange(writer: MsgpackWriter, range: ProtocolRange, type: MessageType, field: string): void {
  const problem = typeof range === 'object' && range !== null ? protocolRangeProblem(range) : 'must be an object';
  if (problem !== undefined) rejectRange(type, field, problem, range);
  writer.uint(range.min);
  writer.uint(range.max);
}

function writeUint32(writer: MsgpackWriter, value: number, type: MessageType, field: string): void {
  if (value >>> 0 !== value) rejectRange(type, field, 'must be a uint32', value);
  writer.uint(value);
}

function writeBool(writer: MsgpackWriter, value: boolean, type: MessageType, field: string): void {
  if (typeof value !== 'boolean') rejectType(type, field, 'must be a boolean', value);
  writer.bool(value);
}

function writeBytes(writer: MsgpackWriter, value: Uint8Array, type: MessageType, field: string): void {
  if (!(value instanceof Uint8Array)) rejectType(type, field, 'must be a Uint8Array', value);
  writer.bin(value);
}

/** How long a string field may be, and whether it may be empty (the decoder's rules, wire-schema.ts). */
interface StringBound {
  readonly maxBytes: number;
  readonly emptyAllowed: boolean;
}
const NAME: StringBound = { maxBytes: MAX_NAME_BYTES, emptyAllowed: false };
const ADDRESS: StringBound = { maxBytes: MAX_ADDRESS_BYTES, emptyAllowed: false };
/** Empty means "the packet's source". */
const SOURCE_ADDRESS: StringBound = { maxBytes: MAX_ADDRESS_BYTES, emptyAllowed: true };
const KEY: StringBound = { maxBytes: MAX_KEY_BYTES, emptyAllowed: true };

/** Member names: node, from, target, sourceName, origin, push-pull entry names. */
function writeName(writer: MsgpackWriter, value: string, type: MessageType, field: string): void {
  writeString(writer, value, NAME, type, field);
}

function writeString(writer: MsgpackWriter, value: string, bound: StringBound, type: MessageType, field: string): void {
  if (typeof value !== 'string') rejectType(type, field, 'must be a string', value);
  if (value.length === 0 && !bound.emptyAllowed) rejectRange(type, field, 'must not be empty', value);
  const max = bound.maxBytes;
  // A string longer than the limit in UTF-16 units is longer in UTF-8 bytes too: fail before writing.
  const bytes = value.length > max ? max + 1 : writer.str(value);
  if (bytes < 0) rejectRange(type, field, 'must be well-formed UTF-16 (no lone surrogate)', value);
  if (bytes > max) rejectRange(type, field, `must be at most ${max} UTF-8 bytes`, value);
}

function writeErrorText(writer: MsgpackWriter, value: string): void {
  if (typeof value !== 'string') rejectType('error', 'message', 'must be a string', value);
  if (value.length > MAX_ERROR_MESSAGE_CHARS) {
    rejectRange('error', 'message', `must be at most ${MAX_ERROR_MESSAGE_CHARS} characters`, value);
  }
  if (writer.str(value) < 0) rejectRange('error', 'message', 'must be well-formed UTF-16 (no lone surrogate)', value);
}

function stateCode(state: MemberState): number {
  const code = MEMBER_STATES.indexOf(state);
  if (code < 0) rejectRange('push-pull', 'members.state', `must be one of ${MEMBER_STATES.join(', ')}`, state);
  return code;
}

/** A field of the wrong JavaScript type (reachable from untyped callers only). */
function rejectType(type: MessageType, field: string, problem: string, value: unknown): never {
  throw new TypeError(rejection(type, field, problem, value));
}

/** A field of the right type whose value the wire cannot carry. */
function rejectRange(type: MessageType, field: string, problem: string, value: unknown): never {
  throw new RangeError(rejection(type, field, problem, value));
}

function rejection(type: MessageType, field: string, problem: string, value: unknown): string {
  return `cannot encode ${type}: field '${field}' ${problem}, got ${describe(value)}`;
}

/** A short description of a rejected value; strings are summarised, not echoed. */
function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value)})`;
  return typeof value;
}
