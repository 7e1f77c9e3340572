/**
 * The format of the committed envelope fixtures (`wire-<version>.json`, one file per release of
 * @swim/encryption), shared by the generator and the test. Plaintexts are @swim/core packets and
 * stream payloads; their messages are JSON with every Uint8Array as `{ "$bytes": "<hex>" }`, the
 * same tagged form as the core's own wire fixtures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EncryptionVersion } from '../../src/index.js';

/** Where the bytes travel: a packet, a stream request (a label header when labelled), a stream reply (never one). */
export type EnvelopeKind = 'packet' | 'stream-request' | 'stream-reply';

export interface PlaintextFixture {
  readonly name: string;
  /** How the core decodes it: `decodePacket`, or `decodeStream` (exactly one message). */
  readonly kind: 'packet' | 'stream';
  readonly hex: string;
  /** What the core decodes it to, in the tagged JSON form. */
  readonly messages: readonly unknown[];
}

export interface EnvelopeFixture {
  /** Unique in its file; named in every failure. */
  readonly name: string;
  readonly kind: EnvelopeKind;
  readonly encryptionVersion: EncryptionVersion;
  /** A name in {@link EnvelopeFixtureFile.keys}. */
  readonly key: string;
  /** The cluster label; absent for none. */
  readonly label?: string;
  /** A name in {@link EnvelopeFixtureFile.plaintexts}. */
  readonly plaintext: string;
  /** The bytes the release wrote (the nonce was random: they are what one run produced). */
  readonly hex: string;
}

export interface EnvelopeFixtureFile {
  /** The @swim/encryption version that wrote the envelopes. */
  readonly version: string;
  /** The @swim/core version that wrote the plaintexts. */
  readonly coreVersion: string;
  /** Fixed test keys, base64 as operators give them; never used anywhere else. */
  readonly keys: Readonly<Record<string, string>>;
  readonly plaintexts: readonly PlaintextFixture[];
  readonly envelopes: readonly EnvelopeFixture[];
}

export const FIXTURE_DIR = fileURLToPath(new URL('.', import.meta.url));
const FILE_NAME = /^wire-(\d+\.\d+\.\d+(?:-[\w.]+)?)\.json$/;

export function fixtureFileName(version: string): string {
  return `wire-${version}.json`;
}

/** Every committed fixture file, oldest name first. */
export function readFixtureFiles(): EnvelopeFixtureFile[] {
  return readdirSync(FIXTURE_DIR)
    .filter((name) => FILE_NAME.test(name))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(FIXTURE_DIR, name), 'utf8')) as EnvelopeFixtureFile);
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

/** The values a tagged JSON form stands for. */
export function fromFixtureJson(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(fromFixtureJson);
  if (typeof json === 'object' && json !== null) {
    if ('$bytes' in json && typeof json.$bytes === 'string') return fromHex(json.$bytes);
    return Object.fromEntries(Object.entries(json).map(([key, field]) => [key, fromFixtureJson(field)]));
  }
  return json;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function fromHex(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new RangeError(`not lower-case hex of whole bytes: ${hex.slice(0, 16)}...`);
  return Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16));
}
