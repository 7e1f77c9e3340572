import { MEMBER_STATES, type Message, type PushPullEntry } from '@swim/core';
import { GoMsgpackWriter } from './go-msgpack-writer.js';
import { parseIpPort, type IpPort } from './ip.js';
import { MSG } from './message-types.js';

/** Where the encoder finds the Vsn to write in an alive or a push-pull entry. */
export type VsnLookup = (name: string) => Uint8Array;

const UINT32_MAX = 0xffff_ffff;

/**
 * A packet message as memberlist encodes it (memberlist encode): the type byte, then the msgpack
 * struct with its fields in go-msgpack's order. User messages and broadcasts are memberlist user
 * messages: the type byte and the payload, no header (memberlist's gossiped user messages). Push-
 * pull and error exist on streams only. Throws a RangeError for what memberlist cannot carry (an
 * address that is not an IP and port, an integer out of its Go type) and a TypeError for a
 * message that is no packet message.
 */
export function writePacketMessage(w: GoMsgpackWriter, message: Message, vsnOf: VsnLookup): void {
  switch (message.type) {
    case 'ping': {
      w.byte(MSG.ping);
      writePing(w, message.seq, message.target, message.sourceName, message.sourceAddress);
      return;
    }
    case 'ping-req': {
      const target = ipPort(message.targetAddress, 'ping-req', 'targetAddress');
      const source = message.sourceAddress === '' ? undefined : ipPort(message.sourceAddress, 'ping-req', 'sourceAddress');
      const withSourceNode = source !== undefined && message.sourceName !== '';
      w.byte(MSG.indirectPing);
      w.mapHeader(5 + (source === undefined ? 0 : withSourceNode ? 3 : 2));
      w.key('Nack');
      w.bool(message.nack);
      text(w, 'Node', message.target, 'ping-req');
      w.key('Port');
      w.uint(target.port);
      w.key('SeqNo');
      w.uint(uint32(message.seq, 'ping-req', 'seq'));
      if (source !== undefined) writeSource(w, source, withSourceNode ? message.sourceName : '');
      w.key('Target');
      w.rawString(target.ip);
      return;
    }
    case 'ack':
      w.byte(MSG.ack);
      w.mapHeader(2);
      w.key('Payload');
      w.rawString(message.payload, true);
      w.key('SeqNo');
      w.uint(uint32(message.seq, 'ack', 'seq'));
      return;
    case 'nack':
      w.byte(MSG.nack);
      w.mapHeader(1);
      w.key('SeqNo');
      w.uint(uint32(message.seq, 'nack', 'seq'));
      return;
    case 'suspect':
    case 'dead':
      w.byte(message.type === 'suspect' ? MSG.suspect : MSG.dead);
      w.mapHeader(3);
      text(w, 'From', message.from, message.type);
      w.key('Incarnation');
      w.uint(uint32(message.incarnation, message.type, 'incarnation'));
      text(w, 'Node', message.node, message.type);
      return;
    case 'alive': {
      const address = ipPort(message.address, 'alive', 'address');
      w.byte(MSG.alive);
      w.mapHeader(6);
      w.key('Addr');
      w.rawString(address.ip);
      w.key('Incarnation');
      w.uint(uint32(message.incarnation, 'alive', 'incarnation'));
      w.key('Meta');
      w.rawString(bytes(message.meta, 'alive', 'meta'), true);
      text(w, 'Node', message.node, 'alive');
      w.key('Port');
      w.uint(address.port);
      w.key('Vsn');
      w.rawString(vsnOf(message.node));
      return;
    }
    case 'user':
    case 'broadcast':
      // memberlist gossips user messages as [8] + raw bytes; a broadcast's key, origin and
      // version are ours and stay local (the payload is all a memberlist peer would see).
      w.byte(MSG.user);
      w.raw(bytes(message.payload, message.type, 'payload'));
      return;
    case 'push-pull':
    case 'error':
      throw new TypeError(`a ${message.type} message travels on streams only`);
    default:
      throw new TypeError(`cannot encode a message of unknown type ${describe((message as { type?: unknown }).type)}`);
  }
}

/**
 * A stream message (memberlist sendAndReceiveState, sendUserMsg, handleConn's replies): push-pull
 * [6] with its header, entries and raw user state; a user message [8] with its UserMsgLen header
 * and raw payload; error [13]; ping and ack as in packets.
 */
export function writeStreamMessage(w: GoMsgpackWriter, message: Message, vsnOf: VsnLookup): void {
  switch (message.type) {
    case 'push-pull': {
      w.byte(MSG.pushPull);
      w.mapHeader(3);
      w.key('Join');
      w.bool(message.join);
      w.key('Nodes');
      w.uint(message.members.length);
      const userState = bytes(message.userState, 'push-pull', 'userState');
      w.key('UserStateLen');
      w.uint(userState.length);
      for (const entry of message.members) writeEntry(w, entry, vsnOf);
      w.raw(userState);
      return;
    }
    case 'user': {
      const payload = bytes(message.payload, 'user', 'payload');
      w.byte(MSG.user);
      w.mapHeader(1);
      w.key('UserMsgLen');
      w.uint(payload.length);
      w.raw(payload);
      return;
    }
    case 'error':
      w.byte(MSG.err);
      w.mapHeader(1);
      text(w, 'Error', message.message, 'error');
      return;
    case 'ping':
    case 'ack':
      writePacketMessage(w, message, vsnOf);
      return;
    default:
      throw new TypeError(`a ${describe((message as { type?: unknown }).type)} message does not travel on streams`);
  }
}

function writePing(w: GoMsgpackWriter, seq: number, target: string, sourceName: string, sourceAddress: string): void {
  const source = sourceAddress === '' ? undefined : ipPort(sourceAddress, 'ping', 'sourceAddress');
  const withSourceNode = source !== undefined && sourceName !== '';
  w.mapHeader(2 + (source === undefined ? 0 : withSourceNode ? 3 : 2));
  text(w, 'Node', target, 'ping');
  w.key('SeqNo');
  w.uint(uint32(seq, 'ping', 'seq'));
  if (source !== undefined) writeSource(w, source, withSourceNode ? sourceName : '');
}

/** SourceAddr, SourceNode, SourcePort: omitempty in Go, so a missing name is left out. */
function writeSource(w: GoMsgpackWriter, source: IpPort, sourceName: string): void {
  w.key('SourceAddr');
  w.rawString(source.ip);
  if (sourceName !== '') text(w, 'SourceNode', sourceName, 'ping');
  w.key('SourcePort');
  w.uint(source.port);
}

/** memberlist pushNodeState: Addr, Incarnation, Meta, Name, Port, State, Vsn. */
function writeEntry(w: GoMsgpackWriter, entry: PushPullEntry, vsnOf: VsnLookup): void {
  const address = ipPort(entry.address, 'push-pull', 'members.address');
  const state = MEMBER_STATES.indexOf(entry.state);
  if (state < 0) throw new RangeError(`push-pull: field 'members.state' must be one of ${MEMBER_STATES.join(', ')}`);
  w.mapHeader(7);
  w.key('Addr');
  w.rawString(address.ip);
  w.key('Incarnation');
  w.uint(uint32(entry.incarnation, 'push-pull', 'members.incarnation'));
  w.key('Meta');
  w.rawString(bytes(entry.meta, 'push-pull', 'members.meta'), true);
  text(w, 'Name', entry.name, 'push-pull');
  w.key('Port');
  w.uint(address.port);
  w.key('State');
  w.uint(state);
  w.key('Vsn');
  w.rawString(vsnOf(entry.name));
}

function text(w: GoMsgpackWriter, key: string, value: string, type: string): void {
  if (typeof value !== 'string') throw new TypeError(`${type}: field '${key}' must be a string`);
  w.key(key);
  if (!w.text(value)) throw new RangeError(`${type}: field '${key}' must be well-formed UTF-16 (no lone surrogate)`);
}

function uint32(value: number, type: string, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > UINT32_MAX) {
    throw new RangeError(`${type}: field '${field}' must be a uint32, got ${String(value)}`);
  }
  return value;
}

function bytes(value: Uint8Array, type: string, field: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${type}: field '${field}' must be a Uint8Array`);
  return value;
}

/**
 * Parsed addresses, since the same few recur in every packet (ours, our peers'). Bounded: cleared
 * when full. Only successes are kept; the entries are never modified.
 */
const parsedAddresses = new Map<string, IpPort>();
const MAX_PARSED_ADDRESSES = 4096;

function ipPort(address: string, type: string, field: string): IpPort {
  const known = parsedAddresses.get(address);
  if (known !== undefined) return known;
  const parsed = parseIpPort(address);
  if (typeof parsed === 'string') throw new RangeError(`${type}: field '${field}': ${parsed}`);
  if (parsedAddresses.size >= MAX_PARSED_ADDRESSES) parsedAddresses.clear();
  parsedAddresses.set(address, parsed);
  return parsed;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 32)) : typeof value;
}
