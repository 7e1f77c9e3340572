/**
 * The wire promise: the bytes every release wrote still decode, with today's codec, to what they
 * decoded to in that release. Each release's fixtures are committed in wire-fixtures/ (written
 * once by generate.ts, never regenerated). A failure here means peers of that release would be
 * misread or dropped: fix the change, not the fixture.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGE_TYPE_CODES, swimCodec } from '../src/index.js';
import { expectedMessages, fromHex, messageTypesOf, readFixtureFiles } from './wire-fixtures/fixture-file.js';

const files = readFixtureFiles();

it('finds the committed wire fixtures, 0.1.0 first', () => {
  expect(files[0]?.version).toBe('0.1.0');
});

describe.each(files.map((file) => [file.version, file] as const))('wire fixtures of %s', (version, file) => {
  it.each(file.fixtures.map((fixture) => [fixture.name, fixture] as const))('%s decodes as it did', (name, fixture) => {
    const where = `wire fixture '${name}' of ${version}`;
    const bytes = fromHex(fixture.hex);
    const decoded = fixture.kind === 'packet' ? swimCodec.decodePacket(bytes) : swimCodec.decodeStream(bytes, {});
    if (!decoded.ok) expect.fail(`${where} no longer decodes: ${decoded.error.code}: ${decoded.error.detail}`);
    // toEqual: a field a later version adds and leaves undefined for old bytes does not count.
    expect(decoded.messages, `${where} decodes to other messages`).toEqual(expectedMessages(fixture));
  });

  it('cover every message type of that version still in the codec, under its code', () => {
    // Only the types that existed then: a type added later gets its fixtures in the file of the
    // version that adds it (generate.ts refuses to write a file with an uncovered type).
    const covered = new Set<string>(file.fixtures.flatMap(messageTypesOf));
    const codes: Readonly<Record<string, number>> = MESSAGE_TYPE_CODES;
    for (const [type, code] of Object.entries(file.messageTypeCodes)) {
      if (codes[type] === undefined) continue;
      expect(codes[type], `message type '${type}' has another wire code than in ${version}`).toBe(code);
      expect(covered.has(type), `wire fixtures of ${version} have no '${type}' message`).toBe(true);
    }
  });
});
