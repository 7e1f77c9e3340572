import { MAX_NAME_BYTES, MEMBER_STATES, type Message, type PushPullEntry } from '@swim/core';
import { DecodeFailure, invalidField, malformed } from './decode-failure.js';
import { formatIpPort } from './ip.js';
import { MSG } from './message-types.js';
import { MsgpackReader } from './msgpack-reader.js';
import { aliveVsnProblem, verifyProtocol, type VersionedEntry, type Vsn, type VsnCache } from './vsn.js';

/** What decoding needs beyond the bytes: the Vsn cache it fills, our own Vsn, the limits. */
export interface DecodeContext {
  readonly vsnCache: VsnCache;
  readonly ownVsn: Vsn;
}

const UINT32_MAX = 0xffff_ffff;
const UINT16_MAX = 0xffff;
/** An IP is 4 or 16 bytes; anything longer is refused before it is copied. */
const MAX_IP_BYTES = 16;
/** Bound on an error reply's text, in UTF-16 units (the core's ErrorMessage bound). */
const MAX_ERROR_CHARS = 4096;
/** A Vsn is 6 bytes; a longer one is refused (and never copied whole). */
const MAX_VSN_BYTES = 255;

/**
 * One packet message after its type byte: the struct of a ping, indirect ping, ack, nack,
 * suspect, alive or dead. Throws a {@link DecodeFailure} for a part to skip: the body does not
 * decode, or an alive carries a Vsn memberlist aliveNode would ignore (counted in versionRefused).
 * Bytes after the struct are ignored, as Go's decoder does.
 */
export function readPacketStruct(type: number, bytes: Uint8Array, start: number, end: number, ctx: DecodeContext): Message {
  const reader = new MsgpackReader(bytes, start, end);
  switch (type) {
    case MSG.ping:
      return readPing(reader);
    case MSG.indirectPing:
      return readIndirectPing(reader);
    case MSG.ack:
      return readAck(reader);
    case MSG.nack: {
      let seq = 0;
      for (let n = reader.mapHeader('nack'); n > 0; n--) {
        if (reader.key() === 'SeqNo') seq = reader.uint('SeqNo', UINT32_MAX);
        else reader.skip();
      }
      return { type: 'nack', seq };
    }
    case MSG.suspect:
    case MSG.dead:
      return readAccusation(reader, type === MSG.suspect ? 'suspect' : 'dead');
    case MSG.alive:
      return readAlive(reader, ctx);
    default:
      throw new DecodeFailure('unknown-type', `message type ${type} is not a packet message`, 'unknownParts');
  }
}

export function readPing(reader: MsgpackReader): Message {
  let seq = 0;
  let target = '';
  let sourceIp = EMPTY;
  let sourcePort = 0;
  let sourceName = '';
  for (let n = reader.mapHeader('ping'); n > 0; n--) {
    switch (reader.key()) {
      case 'SeqNo':
        seq = reader.uint('SeqNo', UINT32_MAX);
        break;
      case 'Node':
        target = reader.text('Node', MAX_NAME_BYTES);
        break;
      case 'SourceAddr':
        sourceIp = reader.bytes('SourceAddr', MAX_IP_BYTES);
        break;
      case 'SourcePort':
        sourcePort = reader.uint('SourcePort', UINT16_MAX);
        break;
      case 'SourceNode':
        sourceName = reader.text('SourceNode', MAX_NAME_BYTES);
        break;
      default:
        reader.skip();
    }
  }
  // memberlist handlePing answers SourceAddr:SourcePort only when both are set, else the packet's source.
  const sourceAddress = sourceIp.length > 0 && sourcePort > 0 ? address(sourceIp, sourcePort, 'SourceAddr') : '';
  return { type: 'ping', seq, target, sourceName, sourceAddress };
}

function readIndirectPing(reader: MsgpackReader): Message {
  let seq = 0;
  let target = '';
  let targetIp = EMPTY;
  let port = 0;
  let nack = false;
  let sourceIp = EMPTY;
  let sourcePort = 0;
  let sourceName = '';
  for (let n = reader.mapHeader('indirect ping'); n > 0; n--) {
    switch (reader.key()) {
      case 'SeqNo':
        seq = reader.uint('SeqNo', UINT32_MAX);
        break;
      case 'Target':
        targetIp = reader.bytes('Target', MAX_IP_BYTES);
        break;
      case 'Port':
        port = reader.uint('Port', UINT16_MAX);
        break;
      case 'Node':
        target = reader.text('Node', MAX_NAME_BYTES);
        break;
      case 'Nack':
        nack = reader.bool('Nack');
        break;
      case 'SourceAddr':
        sourceIp = reader.bytes('SourceAddr', MAX_IP_BYTES);
        break;
      case 'SourcePort':
        sourcePort = reader.uint('SourcePort', UINT16_MAX);
        break;
      case 'SourceNode':
        sourceName = reader.text('SourceNode', MAX_NAME_BYTES);
        break;
      default:
        reader.skip();
    }
  }
  const targetAddress = address(targetIp, port, 'Target');
  const sourceAddress = sourceIp.length > 0 && sourcePort > 0 ? address(sourceIp, sourcePort, 'SourceAddr') : '';
  return { type: 'ping-req', seq, target, targetAddress, nack, sourceName, sourceAddress };
}

export function readAck(reader: MsgpackReader): Message {
  let seq = 0;
  let payload = EMPTY;
  for (let n = reader.mapHeader('ack'); n > 0; n--) {
    switch (reader.key()) {
      case 'SeqNo':
        seq = reader.uint('SeqNo', UINT32_MAX);
        break;
      case 'Payload':
        payload = reader.bytes('Payload', reader.remaining);
        break;
      default:
        reader.skip();
    }
  }
  return { type: 'ack', seq, payload };
}

function readAccusation(reader: MsgpackReader, type: 'suspect' | 'dead'): Message {
  let incarnation = 0;
  let node = '';
  let from = '';
  for (let n = reader.mapHeader(type); n > 0; n--) {
    switch (reader.key()) {
      case 'Incarnation':
        incarnation = reader.uint('Incarnation', UINT32_MAX);
        break;
      case 'Node':
        node = reader.text('Node', MAX_NAME_BYTES);
        break;
      case 'From':
        from = reader.text('From', MAX_NAME_BYTES);
        break;
      default:
        reader.skip();
    }
  }
  return { type, incarnation, node: name(node, 'Node'), from: name(from, 'From') };
}

function readAlive(reader: MsgpackReader, ctx: DecodeContext): Message {
  const { entry, vsn } = readNode(reader, ALIVE_STRUCT);
  const alive: Message = { type: 'alive', incarnation: entry.incarnation, node: entry.name, address: entry.address, meta: entry.meta };
  const problem = aliveVsnProblem(vsn);
  if (problem !== undefined) throw new DecodeFailure('version', `alive ignored: ${problem}`, 'versionRefused');
  ctx.vsnCache.learn(alive.node, vsn);
  return alive;
}

/**
 * A push-pull after its type byte (memberlist readRemoteState): the header, `Nodes` entries, then
 * `UserStateLen` raw bytes, which must end exactly at `end`. The whole exchange is refused when
 * the entries fail memberlist verifyProtocol against our Vsn; alive entries memberlist aliveNode
 * would ignore are dropped (counted) and the rest kept.
 */
export function readPushPull(
  bytes: Uint8Array,
  start: number,
  end: number,
  ctx: DecodeContext,
  maxEntries: number,
  onVersionRefused: () => void,
): Message {
  const reader = new MsgpackReader(bytes, start, end);
  let join = false;
  let count = 0;
  let userStateLength = 0;
  for (let n = reader.mapHeader('push-pull header'); n > 0; n--) {
    switch (reader.key()) {
      case 'Join':
        join = reader.bool('Join');
        break;
      case 'Nodes':
        count = reader.uint('Nodes', UINT32_MAX);
        break;
      case 'UserStateLen':
        userStateLength = reader.uint('UserStateLen', UINT32_MAX);
        break;
      default:
        reader.skip();
    }
  }
  if (count > maxEntries) throw new DecodeFailure('too-many', `a push-pull of ${count} entries; at most ${maxEntries}`);
  // Every entry takes at least one byte, the user state its length: a header promising more lies.
  if (count + userStateLength > reader.remaining) throw malformed(`the push-pull header promises more than the ${reader.remaining} bytes left`);
  const entries: { entry: PushPullEntry; vsn: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    try {
      entries.push(readNode(reader, ENTRY_STRUCT));
    } catch (failure) {
      if (!(failure instanceof DecodeFailure)) throw failure;
      throw new DecodeFailure(failure.code, `members[${i}]: ${failure.detail}`, failure.counter);
    }
  }
  if (reader.remaining !== userStateLength) {
    throw malformed(`the user state is ${reader.remaining} bytes, the header says ${userStateLength}`);
  }
  const userState = userStateLength === 0 ? EMPTY : bytes.slice(reader.position, end);
  const versioned: VersionedEntry[] = entries.map(({ entry, vsn }) => ({ name: entry.name, alive: entry.state === 'alive', vsn }));
  const incompatible = verifyProtocol(versioned, ctx.ownVsn);
  if (incompatible !== undefined) throw new DecodeFailure('invalid-field', `push-pull refused: ${incompatible}`, 'pushPullsIncompatible');
  const members: PushPullEntry[] = [];
  for (const { entry, vsn } of entries) {
    const problem = aliveVsnProblem(vsn);
    if (problem === undefined) ctx.vsnCache.learn(entry.name, vsn);
    else if (entry.state === 'alive') {
      onVersionRefused();
      continue;
    }
    members.push(entry);
  }
  return { type: 'push-pull', join, members, userState };
}

/**
 * memberlist's alive and pushNodeState structs carry a node in the same fields but for the key
 * of its name, and State (push-pull entries only: an alive's State key is skipped, as Go does).
 */
interface NodeStruct {
  /** What the map is, for errors. */
  readonly what: string;
  readonly nameKey: 'Node' | 'Name';
  readonly hasState: boolean;
}

const ALIVE_STRUCT: NodeStruct = { what: 'alive', nameKey: 'Node', hasState: false };
const ENTRY_STRUCT: NodeStruct = { what: 'members entry', nameKey: 'Name', hasState: true };

/** A node's fields (name and address checked; state alive when the struct has none), and its Vsn as received. */
function readNode(reader: MsgpackReader, struct: NodeStruct): { entry: PushPullEntry; vsn: Uint8Array } {
  let nodeName = '';
  let ip = EMPTY;
  let port = 0;
  let meta = EMPTY;
  let incarnation = 0;
  let state = 0;
  let vsn = EMPTY;
  for (let n = reader.mapHeader(struct.what); n > 0; n--) {
    switch (reader.key()) {
      case struct.nameKey:
        nodeName = reader.text(struct.nameKey, MAX_NAME_BYTES);
        break;
      case 'Addr':
        ip = reader.bytes('Addr', MAX_IP_BYTES);
        break;
      case 'Port':
        port = reader.uint('Port', UINT16_MAX);
        break;
      case 'Meta':
        meta = reader.bytes('Meta', reader.remaining);
        break;
      case 'Incarnation':
        incarnation = reader.uint('Incarnation', UINT32_MAX);
        break;
      case 'State':
        if (struct.hasState) state = reader.uint('State', MEMBER_STATES.length - 1);
        else reader.skip();
        break;
      case 'Vsn':
        vsn = reader.bytes('Vsn', MAX_VSN_BYTES);
        break;
      default:
        reader.skip();
    }
  }
  const entry: PushPullEntry = {
    name: name(nodeName, struct.nameKey),
    address: address(ip, port, 'Addr'),
    meta,
    incarnation,
    state: MEMBER_STATES[state]!,
  };
  return { entry, vsn };
}

/** A user message on a stream (memberlist readUserMsg): the UserMsgLen header, then exactly that many bytes. */
export function readStreamUser(bytes: Uint8Array, start: number, end: number): Message {
  const reader = new MsgpackReader(bytes, start, end);
  let length = 0;
  for (let n = reader.mapHeader('user message header'); n > 0; n--) {
    if (reader.key() === 'UserMsgLen') length = reader.uint('UserMsgLen', UINT32_MAX);
    else reader.skip();
  }
  if (reader.remaining !== length) throw malformed(`the user message is ${reader.remaining} bytes, the header says ${length}`);
  return { type: 'user', from: '', payload: length === 0 ? EMPTY : bytes.slice(reader.position, end) };
}

/** memberlist errResp. */
export function readError(reader: MsgpackReader): Message {
  let message = '';
  for (let n = reader.mapHeader('error'); n > 0; n--) {
    if (reader.key() === 'Error') message = reader.text('Error', MAX_ERROR_CHARS * 3);
    else reader.skip();
  }
  if (message.length > MAX_ERROR_CHARS) throw invalidField('Error', `must be at most ${MAX_ERROR_CHARS} characters`);
  return { type: 'error', message };
}

/** The address string of IP bytes and a port; a part with any other IP length or port 0 is refused. */
function address(ip: Uint8Array, port: number, field: string): string {
  if (port === 0) throw invalidField(field === 'Target' ? 'Port' : field, 'comes with no port');
  const text = formatIpPort(ip, port);
  if (text === undefined) throw invalidField(field, `must be an IP of 4 or 16 bytes, got ${ip.length}`);
  return text;
}

/** Member names are never empty (a member nobody can name). */
function name(value: string, field: string): string {
  if (value === '') throw invalidField(field, 'must not be empty');
  return value;
}

export const EMPTY: Uint8Array = new Uint8Array(0);
