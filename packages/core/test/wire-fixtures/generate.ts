/**
 * Writes `wire-<version>.json`: the bytes this version of the codec writes for the messages below,
 * and what they decode to. Run once per release, from the repository root:
 *
 *     node --conditions=@swim/source --import tsx packages/core/test/wire-fixtures/generate.ts
 *
 * It refuses to overwrite an existing file: a release's fixtures are never regenerated, or they
 * would stop recording what that release wrote. A later release adds its own file, with fixtures
 * for whatever it adds to the wire.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { encodeMessage, encodeRangePayload, MESSAGE_TYPE_CODES, swimCodec, type DecodeResult, type Message, type PushPullEntry } from '../../src/index.js';
import { MEMBER_STATES } from '../../src/members/member.js';
import { bytes, MAX_UINT32 } from '../codec-samples.js';
import {
  FIXTURE_DIR,
  fixtureFileName,
  fromFixtureJson,
  messageTypesOf,
  toFixtureJson,
  toHex,
  type FixtureKind,
  type WireFixture,
  type WireFixtureFile,
} from './fixture-file.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
/** `length` bytes counting up from `first`, wrapping at 256: byte fields long enough for a wider msgpack header. */
const ramp = (length: number, first = 0): Uint8Array => Uint8Array.from({ length }, (_, i) => (first + i) & 0xff);

const A = { name: 'node-a', address: '10.0.1.17:7946' };
const B = { name: 'node-b', address: '10.0.1.18:7946' };
const C = { name: 'node-c', address: '[fe80::1%eth0]:7946' };
/** 128 bytes: MAX_NAME_BYTES, a str8 header. */
const LONGEST_NAME = 'ingest-worker-7d9f8c6b5-x2x9q.ingest.svc.'.padEnd(128, 'z');
/** Multi-byte UTF-8 in a name. */
const UNICODE_NAME = 'nœud-été-Ω-🛟';

const ping: Message = { type: 'ping', seq: 1, target: B.name, sourceName: A.name, sourceAddress: A.address };
const suspect: Message = { type: 'suspect', incarnation: 0, node: C.name, from: A.name };
const alive: Message = { type: 'alive', incarnation: 1, node: B.name, address: B.address, meta: utf8('role=web;dc=eu-west-1') };
const dead: Message = { type: 'dead', incarnation: 255, node: 'node-e', from: A.name };
const leave: Message = { type: 'dead', incarnation: 256, node: 'node-f', from: 'node-f' };
const broadcast: Message = { type: 'broadcast', key: 'config/feature-flags', origin: A.name, version: 42, payload: utf8('{"dark-mode":true}') };

/** One member in every state, incarnations at the edges of the msgpack integer forms. */
function entries(count: number): PushPullEntry[] {
  const incarnations = [0, 1, 127, 128, 65_535, 65_536, MAX_UINT32];
  return Array.from({ length: count }, (_, i) => ({
    name: `node-${String(i + 1).padStart(2, '0')}`,
    address: `10.0.2.${i + 1}:7946`,
    meta: i % 3 === 0 ? bytes() : utf8(`zone=${'abc'[i % 3]}`),
    incarnation: incarnations[i % incarnations.length]!,
    state: MEMBER_STATES[i % MEMBER_STATES.length]!,
  }));
}

/** Single messages in packets: every type, and each field that may be empty both ways. */
const singles: Array<[string, Message]> = [
  ['ping', ping],
  ['ping-empty-source-address', { type: 'ping', seq: MAX_UINT32, target: C.name, sourceName: UNICODE_NAME, sourceAddress: '' }],
  [
    'ping-req-with-nack',
    { type: 'ping-req', seq: 128, target: C.name, targetAddress: C.address, nack: true, sourceName: A.name, sourceAddress: A.address },
  ],
  [
    'ping-req-without-nack-empty-source-address',
    { type: 'ping-req', seq: 65_536, target: B.name, targetAddress: B.address, nack: false, sourceName: A.name, sourceAddress: '' },
  ],
  ['ack-with-payload', { type: 'ack', seq: 1, payload: bytes(0x00, 0x01, 0xfe, 0xff) }],
  ['ack-empty-payload', { type: 'ack', seq: 0, payload: bytes() }],
  ['nack', { type: 'nack', seq: 65_535 }],
  ['suspect-incarnation-0', suspect],
  ['suspect-incarnation-max', { type: 'suspect', incarnation: MAX_UINT32, node: UNICODE_NAME, from: B.name }],
  ['alive-with-meta', alive],
  ['alive-empty-meta', { type: 'alive', incarnation: MAX_UINT32, node: C.name, address: C.address, meta: bytes() }],
  [
    'alive-longest-name-and-bin16-meta',
    { type: 'alive', incarnation: 65_536, node: LONGEST_NAME, address: 'ingest-7.eu-west-1.compute.internal:7946', meta: ramp(300) },
  ],
  ['dead', dead],
  ['dead-leave', leave],
  ['broadcast', broadcast],
  ['broadcast-empty-key-uint64-version', { type: 'broadcast', key: '', origin: B.name, version: Number.MAX_SAFE_INTEGER, payload: bytes() }],
  ['user-with-payload', { type: 'user', from: A.name, payload: utf8('hello, node-b') }],
  ['user-empty-payload', { type: 'user', from: UNICODE_NAME, payload: bytes() }],
  ['error-in-a-packet', { type: 'error', message: 'unexpected error in a packet' }],
];

/** Stream payloads: push-pull requests and replies, the fallback ping and its ack, reliable user messages, errors. */
const streams: Array<[string, Message]> = [
  ['stream-push-pull-request', { type: 'push-pull', join: false, members: entries(5), userState: utf8('{"leader":"node-01"}') }],
  ['stream-push-pull-join', { type: 'push-pull', join: true, members: entries(1), userState: bytes() }],
  ['stream-push-pull-reply-array16', { type: 'push-pull', join: false, members: entries(17), userState: ramp(8, 0xf8) }],
  ['stream-fallback-ping', { type: 'ping', seq: 70_000, target: B.name, sourceName: A.name, sourceAddress: A.address }],
  ['stream-fallback-ack', { type: 'ack', seq: 70_000, payload: bytes() }],
  ['stream-user-reliable', { type: 'user', from: A.name, payload: ramp(40) }],
  ['stream-error', { type: 'error', message: 'too many pending push-pull requests' }],
];

function fixture(name: string, kind: FixtureKind, packet: Uint8Array, messages: Message[]): WireFixture {
  const decoded: DecodeResult = kind === 'packet' ? swimCodec.decodePacket(packet) : swimCodec.decodeStream(packet, {});
  if (!decoded.ok) throw new Error(`${name}: the codec does not read its own bytes: ${decoded.error.detail}`);
  const json = toFixtureJson(decoded.messages) as unknown[];
  // The committed form must stand for exactly what was encoded and decoded.
  if (!isDeepStrictEqual(json, toFixtureJson(messages)) || !isDeepStrictEqual(toFixtureJson(fromFixtureJson(json)), json)) {
    throw new Error(`${name}: decoded messages differ from the encoded ones, or do not round-trip through JSON`);
  }
  return { name, kind, hex: toHex(packet), messages: json };
}

function compound(name: string, first: Message, gossip: Message[]): WireFixture {
  // As the core sends it: a probe or ack written with queued gossip parts behind it.
  const packet = swimCodec.encodePacketWithParts!(first, gossip.map(encodeMessage));
  return fixture(name, 'packet', packet, [first, ...gossip]);
}

const fixtures: WireFixture[] = [
  ...singles.map(([name, message]) => fixture(name, 'packet', swimCodec.encodePacket([message]), [message])),
  compound('compound-ping-with-gossip', ping, [suspect, alive, dead, leave, broadcast]),
  compound('compound-ack-with-gossip', { type: 'ack', seq: 1, payload: bytes() }, [alive, leave]),
  // A gossip tick's packet: queued parts only.
  fixture('compound-gossip-only', 'packet', swimCodec.assemblePacket([suspect, alive, broadcast].map(encodeMessage)), [suspect, alive, broadcast]),
  ...streams.map(([name, message]) => fixture(name, 'stream', swimCodec.encodeStream(message), [message])),
  // Protocol version 2 (from 0.2.0): the version byte 2, ranges on alives and push-pull entries, a range in direct acks.
  ...versionTwo(),
];

/** What protocol version 2 writes, where it differs from version 1 (docs/compatibility.md). */
function versionTwo(): WireFixture[] {
  const range = { min: 1, max: 2 };
  const ranged: Message = { ...(alive as Extract<Message, { type: 'alive' }>), protocol: range };
  const ack: Message = { type: 'ack', seq: 7, payload: encodeRangePayload(range) };
  const pushPull: Message = {
    type: 'push-pull',
    join: true,
    members: entries(4).map((entry, i) => (i % 2 === 0 ? { ...entry, protocol: { min: 1, max: 2 + i } } : entry)),
    userState: bytes(),
  };
  return [
    fixture('v2-alive-with-range', 'packet', swimCodec.encodePacket([ranged], 2), [ranged]),
    fixture('v2-ack-with-range-payload', 'packet', swimCodec.encodePacket([ack], 2), [ack]),
    fixture('v2-compound-ping-with-gossip', 'packet', swimCodec.encodePacketWithParts!(ping, [suspect, ranged, leave].map(encodeMessage), 2), [ping, suspect, ranged, leave]),
    fixture('v2-stream-push-pull-with-ranges', 'stream', swimCodec.encodeStream(pushPull, 2), [pushPull]),
  ];
}

const covered = new Set(fixtures.flatMap(messageTypesOf));
const uncovered = Object.keys(MESSAGE_TYPE_CODES).filter((type) => !covered.has(type as Message['type']));
if (uncovered.length > 0) throw new Error(`no fixture for message types: ${uncovered.join(', ')}`);

const version = (JSON.parse(readFileSync(join(FIXTURE_DIR, '../../package.json'), 'utf8')) as { version: string }).version;
const file: WireFixtureFile = { version, messageTypeCodes: { ...MESSAGE_TYPE_CODES }, fixtures };
const path = join(FIXTURE_DIR, fixtureFileName(version));
try {
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { flag: 'wx' });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  console.error(`${path} exists: fixtures of a released version are never regenerated`);
  process.exit(1);
}
console.log(`wrote ${fixtures.length} fixtures to ${path}`);
