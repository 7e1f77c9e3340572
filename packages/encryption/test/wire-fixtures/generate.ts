/**
 * Writes `wire-<version>.json`: the envelopes this version writes around @swim/core packets and
 * stream payloads, under fixed test keys, and what they hold. Run once per release, from the
 * repository root:
 *
 *     node --conditions=@swim/source --import tsx packages/encryption/test/wire-fixtures/generate.ts
 *
 * The nonces are random, so a second run would write other bytes: it refuses to overwrite an
 * existing file. A later release adds its own file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { swimCodec, type Message } from '@swim/core';
import { Keyring, sealPacket, sealStream, type EncryptionVersion } from '../../src/index.js';
import {
  FIXTURE_DIR,
  fixtureFileName,
  toFixtureJson,
  toHex,
  type EnvelopeFixture,
  type EnvelopeFixtureFile,
  type EnvelopeKind,
  type PlaintextFixture,
} from './fixture-file.js';

const packageVersion = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** AES-256 and AES-128 keys of counting bytes: obviously not secret. */
const KEYS: Record<string, string> = {
  'aes-256': Buffer.from(Uint8Array.from({ length: 32 }, (_, i) => i)).toString('base64'),
  'aes-128': Buffer.from(Uint8Array.from({ length: 16 }, (_, i) => 0xf0 - i)).toString('base64'),
};
const LABEL = 'prod-eu-west';

const gossip: Message[] = [
  { type: 'ping', seq: 41, target: 'node-b', sourceName: 'node-a', sourceAddress: '10.0.1.17:7946' },
  { type: 'suspect', incarnation: 3, node: 'node-c', from: 'node-a' },
  { type: 'alive', incarnation: 7, node: 'node-d', address: '10.0.1.20:7946', meta: utf8('role=db') },
];
const pushPull: Message = {
  type: 'push-pull',
  join: false,
  members: [
    { name: 'node-a', address: '10.0.1.17:7946', meta: utf8('role=web'), incarnation: 1, state: 'alive' },
    { name: 'node-c', address: '10.0.1.19:7946', meta: new Uint8Array(), incarnation: 3, state: 'suspect' },
    { name: 'node-e', address: '10.0.1.21:7946', meta: new Uint8Array(), incarnation: 0xffff_ffff, state: 'dead' },
    { name: 'node-f', address: '10.0.1.22:7946', meta: new Uint8Array(), incarnation: 12, state: 'left' },
  ],
  userState: utf8('{"leader":"node-a"}'),
};

function plaintext(name: string, kind: PlaintextFixture['kind'], messages: Message[]): PlaintextFixture & { bytes: Uint8Array } {
  const bytes = kind === 'packet' ? swimCodec.encodePacket(messages).slice() : swimCodec.encodeStream(messages[0]!).slice();
  const decoded = kind === 'packet' ? swimCodec.decodePacket(bytes) : swimCodec.decodeStream(bytes, {});
  if (!decoded.ok || !isDeepStrictEqual(toFixtureJson(decoded.messages), toFixtureJson(messages))) {
    throw new Error(`${name}: the core does not read back what it wrote`);
  }
  return { name, kind, hex: toHex(bytes), messages: toFixtureJson(messages) as unknown[], bytes };
}

const plaintexts = [plaintext('ping-with-gossip', 'packet', gossip), plaintext('push-pull', 'stream', [pushPull])];

/** What this version writes, as secureTransport writes it (sealPacket, sealStream with or without the label header). */
async function seal(kind: EnvelopeKind, bytes: Uint8Array, keyName: string, label: string | undefined, version: EncryptionVersion): Promise<Uint8Array> {
  const key = (await Keyring.from([KEYS[keyName]!]).cryptoKeys())[0]!;
  const options = { key, label, version };
  return kind === 'packet' ? sealPacket(bytes, options) : sealStream(bytes, { ...options, labelHeader: kind === 'stream-request' });
}

const envelopes: EnvelopeFixture[] = [];
for (const kind of ['packet', 'stream-request', 'stream-reply'] as const) {
  const source = plaintexts[kind === 'packet' ? 0 : 1]!;
  for (const encryptionVersion of [1, 0] as const) {
    for (const key of Object.keys(KEYS)) {
      for (const label of [undefined, LABEL]) {
        const name = `${kind}-v${encryptionVersion}-${key}-${label === undefined ? 'no-label' : 'label'}`;
        const hex = toHex(await seal(kind, source.bytes, key, label, encryptionVersion));
        envelopes.push({ name, kind, encryptionVersion, key, ...(label === undefined ? {} : { label }), plaintext: source.name, hex });
      }
    }
  }
}

const version = packageVersion(join(FIXTURE_DIR, '../..'));
const file: EnvelopeFixtureFile = {
  version,
  coreVersion: packageVersion(join(FIXTURE_DIR, '../../../core')),
  keys: KEYS,
  plaintexts: plaintexts.map(({ bytes: _bytes, ...fixture }) => fixture),
  envelopes,
};
const path = join(FIXTURE_DIR, fixtureFileName(version));
try {
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { flag: 'wx' });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  console.error(`${path} exists: fixtures of a released version are never regenerated`);
  process.exit(1);
}
console.log(`wrote ${envelopes.length} envelopes to ${path}`);
