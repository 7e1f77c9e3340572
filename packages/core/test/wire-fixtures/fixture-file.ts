/**
 * The format of the committed wire fixtures (`wire-<version>.json`, one file per release), shared
 * by the generator and the test. Expected messages are JSON with every Uint8Array as
 * `{ "$bytes": "<hex>" }`: a tag no message field can be mistaken for, so values round-trip.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Message, MessageType } from '../../src/index.js';

/** How the bytes travel, hence how they are decoded: `decodePacket`, or `decodeStream` (exactly one message). */
export type FixtureKind = 'packet' | 'stream';

export interface WireFixture {
  /** Unique in its file; named in every failure. */
  readonly name: string;
  readonly kind: FixtureKind;
  /** The bytes the release wrote. */
  readonly hex: string;
  /** What they decoded to in that release, in the tagged JSON form. */
  readonly messages: readonly unknown[];
}

export interface WireFixtureFile {
  /** The @swim/core version that wrote the bytes. */
  readonly version: string;
  /** The codec's MESSAGE_TYPE_CODES at that version: the types whose coverage must never shrink. */
  readonly messageTypeCodes: Readonly<Record<string, number>>;
  readonly fixtures: readonly WireFixture[];
}

export const FIXTURE_DIR = fileURLToPath(new URL('.', import.meta.url));
const FILE_NAME = /^wire-(\d+\.\d+\.\d+(?:-[\w.]+)?)\.json$/;

export function fixtureFileName(version: string): string {
  return `wire-${version}.json`;
}

/** Every committed fixture file, oldest name first. */
export function readFixtureFiles(): WireFixtureFile[] {
  return readdirSync(FIXTURE_DIR)
    .filter((name) => FILE_NAME.test(name))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(FIXTURE_DIR, name), 'utf8')) as WireFixtureFile);
}

/** `value` (messages, as decoded) in the tagged JSON form; throws for anything that would not round-trip. */
export function toFixtureJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: toHex(value) };
  if (Array.isArray(value)) return value.map(toFixtureJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, toFixtureJson(field)]));
  }
  if (typeof value === 'string' || typeof value === 'boolean' || Number.isSafeInteger(value)) return value;
  throw new TypeError(`no fixture form for ${String(value)} (${typeof value})`);
}

/** The messages a tagged JSON form stands for. */
export function fromFixtureJson(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(fromFixtureJson);
  if (typeof json === 'object' && json !== null) {
    if ('$bytes' in json && typeof json.$bytes === 'string') return fromHex(json.$bytes);
    return Object.fromEntries(Object.entries(json).map(([key, field]) => [key, fromFixtureJson(field)]));
  }
  return json;
}

export function expectedMessages(fixture: WireFixture): Message[] {
  return fromFixtureJson(fixture.messages) as Message[];
}

export function messageTypesOf(fixture: WireFixture): MessageType[] {
  return fixture.messages.map((message) => (message as { type: MessageType }).type);
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function fromHex(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new RangeError(`not lower-case hex of whole bytes: ${hex.slice(0, 16)}...`);
  return Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16));
}
