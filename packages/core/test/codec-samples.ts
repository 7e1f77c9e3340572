/** Shared by the codec tests: one sample of every message type, and comparison helpers. */
import { Packr, Unpackr } from 'msgpackr';
import { PROTOCOL_VERSION } from '../src/codec/codec.js';
import type { Message, PushPullEntry } from '../src/codec/messages.js';
import { MEMBER_STATES } from '../src/members/member.js';

export const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

export const MAX_UINT32 = 0xffff_ffff;

export const pushPullMembers: PushPullEntry[] = MEMBER_STATES.map((state, i) => ({
  name: `node-${i}`,
  address: `10.0.0.${i}:7946`,
  meta: i % 2 === 0 ? bytes() : bytes(i, 0, 255),
  incarnation: i * 1000,
  state,
}));

/** One message of every type, byte fields non-empty where the type has some. */
export const sampleMessages: Message[] = [
  { type: 'ping', seq: 1, target: 'node-b', sourceName: 'node-a', sourceAddress: '10.0.0.1:7946' },
  {
    type: 'ping-req',
    seq: 2,
    target: 'node-c',
    targetAddress: '10.0.0.3:7946',
    nack: true,
    sourceName: 'node-a',
    sourceAddress: '10.0.0.1:7946',
  },
  { type: 'ack', seq: 3, payload: bytes(1, 2, 3) },
  { type: 'nack', seq: 4 },
  { type: 'suspect', incarnation: 5, node: 'node-c', from: 'node-a' },
  { type: 'alive', incarnation: 6, node: 'node-d', address: '10.0.0.4:7946', meta: bytes(0xde, 0xad) },
  { type: 'dead', incarnation: 7, node: 'node-e', from: 'node-e' },
  { type: 'push-pull', join: true, members: pushPullMembers, userState: bytes(9, 9) },
  { type: 'broadcast', key: 'config', origin: 'node-a', version: 8, payload: bytes(42) },
  { type: 'user', from: 'node-a', payload: bytes(7, 7, 7) },
  { type: 'error', message: 'push-pull refused: wrong cluster' },
];

/**
 * The same messages with every byte field empty, every string as short as allowed (names and
 * addresses one character; a sourceAddress and a broadcast key may be empty) and every number at
 * its upper bound.
 */
export const boundaryMessages: Message[] = [
  { type: 'ping', seq: MAX_UINT32, target: 't', sourceName: 's', sourceAddress: '' },
  {
    type: 'ping-req',
    seq: MAX_UINT32,
    target: 't',
    targetAddress: 'a',
    nack: false,
    sourceName: 's',
    sourceAddress: '',
  },
  { type: 'ack', seq: MAX_UINT32, payload: bytes() },
  { type: 'nack', seq: MAX_UINT32 },
  { type: 'suspect', incarnation: MAX_UINT32, node: 'n', from: 'f' },
  { type: 'alive', incarnation: MAX_UINT32, node: 'n', address: 'a', meta: bytes() },
  { type: 'dead', incarnation: MAX_UINT32, node: 'n', from: 'f' },
  { type: 'push-pull', join: false, members: [], userState: bytes() },
  { type: 'broadcast', key: '', origin: 'o', version: Number.MAX_SAFE_INTEGER, payload: bytes() },
  { type: 'user', from: 'f', payload: bytes() },
  { type: 'error', message: '' },
];

/** Deep copy with every Uint8Array turned into a number[], so byte fields compare as arrays. */
export function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Array.from(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]));
  }
  return value;
}

/** A reference msgpack encoder for crafting packets the way another implementation might. */
export const referencePackr = new Packr({ useRecords: false, moreTypes: false, bundleStrings: false });
/** A reference decoder: plain msgpack, 64-bit integers as numbers. */
export const referenceUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

/** A packet of msgpack values written by the reference encoder (e.g. arrays with bad fields). */
export function craftPacket(...values: unknown[]): Uint8Array {
  return concat(bytes(PROTOCOL_VERSION), ...values.map((value) => Uint8Array.from(referencePackr.pack(value))));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
