import { describe, expect, it } from 'vitest';
import { decodePacket, encodeMessage, type Message } from '../src/index.js';
import { bytes, craftPacket } from './codec-samples.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * Names and addresses from peers are never empty (issue 10, finding 12): a member nobody can name,
 * or one at no address, must not enter tables and be gossiped on. The one exception is a ping's or
 * ping-req's sourceAddress, where empty means "answer the packet's source" (prober.ts).
 */

const ENTRY = (name: string, address: string) => [name, address, bytes(), 1, 0];

/** Wire arrays (type code first) with one identity field empty, and the detail the decoder gives. */
const EMPTY_IDENTITIES: ReadonlyArray<readonly [string, unknown[], string]> = [
  ['ping target', [0, 1, '', 'a', 'a:1'], "part 1 (ping): field 'target' must not be empty"],
  ['ping sourceName', [0, 1, 'me', '', 'a:1'], "part 1 (ping): field 'sourceName' must not be empty"],
  ['ping-req target', [1, 1, '', 'b:1', true, 'a', 'a:1'], "part 1 (ping-req): field 'target' must not be empty"],
  ['ping-req targetAddress', [1, 1, 'b', '', true, 'a', 'a:1'], "part 1 (ping-req): field 'targetAddress' must not be empty"],
  ['ping-req sourceName', [1, 1, 'b', 'b:1', true, '', 'a:1'], "part 1 (ping-req): field 'sourceName' must not be empty"],
  ['suspect node', [3, 1, '', 'a'], "part 1 (suspect): field 'node' must not be empty"],
  ['suspect from', [3, 1, 'b', ''], "part 1 (suspect): field 'from' must not be empty"],
  ['alive node', [4, 1, '', 'b:1', bytes()], "part 1 (alive): field 'node' must not be empty"],
  ['alive address', [4, 1, 'b', '', bytes()], "part 1 (alive): field 'address' must not be empty"],
  ['dead node', [5, 1, '', 'a'], "part 1 (dead): field 'node' must not be empty"],
  ['dead from', [5, 1, 'b', ''], "part 1 (dead): field 'from' must not be empty"],
  ['push-pull entry name', [6, false, [ENTRY('b', 'b:1'), ENTRY('', 'c:1')], bytes()], "part 1 (push-pull): members[1]: field 'name' must not be empty"],
  ['push-pull entry address', [6, false, [ENTRY('b', '')], bytes()], "part 1 (push-pull): members[0]: field 'address' must not be empty"],
  ['broadcast origin', [7, 'k', '', 1, bytes()], "part 1 (broadcast): field 'origin' must not be empty"],
  ['user from', [9, '', bytes(1)], "part 1 (user): field 'from' must not be empty"],
];

describe('empty names and addresses', () => {
  it.each(EMPTY_IDENTITIES)('the decoder rejects an empty %s', (_field, wire, detail) => {
    const result = decodePacket(craftPacket(wire));
    expect(result.ok ? 'accepted' : result.error).toEqual({ code: 'invalid-field', detail });
  });

  it.each(EMPTY_IDENTITIES)('the encoder refuses an empty %s', (_field, wire) => {
    // The same message, built from the accepted form with the one field emptied.
    const result = decodePacket(craftPacket(filled(wire)));
    if (!result.ok) throw new Error(result.error.detail);
    const message = result.messages[0]!;
    const emptied = withEmpty(message, wire);
    expect(() => encodeMessage(emptied)).toThrow(/must not be empty/);
  });

  it.each([
    ['ping sourceAddress', [0, 1, 'me', 'a', '']],
    ['ping-req sourceAddress', [1, 1, 'b', 'b:1', true, 'a', '']],
    ['broadcast key', [7, '', 'a', 1, bytes()]],
  ] as const)('an empty %s is accepted', (_field, wire) => {
    const result = decodePacket(craftPacket([...wire]));
    expect(result.ok ? 'accepted' : result.error.detail).toBe('accepted');
  });

  it('a core drops and counts a packet naming an empty member, and learns nothing from it', () => {
    const lone = new LoneCore({ probeIntervalMs: 60_000, probeTimeoutMs: 500 }, 17);
    lone.introduce('a');
    const before = lone.core.allMembers().length;
    const effects = lone.receive('a:1', craftPacket([4, 1, '', 'z:1', bytes()], [4, 1, 'z', 'z:1', bytes()]));
    expect(effects.map((e) => e.type)).toEqual(['decode-error']);
    expect(lone.core.counters.decodeErrors).toBe(1);
    expect(lone.core.allMembers()).toHaveLength(before);
  });
});

/** `message` with the field that is empty in `wire` emptied again (found by position). */
function withEmpty(message: Message, wire: readonly unknown[]): Message {
  const copy = structuredClone(message) as unknown as Record<string, unknown>;
  const fields = Object.keys(copy).filter((key) => key !== 'type');
  const at = wire.indexOf('');
  if (at > 0) {
    copy[fields[at - 1]!] = '';
    return copy as unknown as Message;
  }
  // A push-pull entry: empty the entry's name or address.
  const members = copy['members'] as Array<Record<string, unknown>>;
  const entries = wire[2] as unknown[][];
  entries.forEach((entry, i) => {
    if (entry[0] === '') members[i]!['name'] = '';
    if (entry[1] === '') members[i]!['address'] = '';
  });
  return copy as unknown as Message;
}

/** `wire` with every empty string, nested ones included, replaced by 'x'. */
function filled(wire: readonly unknown[]): unknown[] {
  return wire.map((v) => (v === '' ? 'x' : Array.isArray(v) ? filled(v) : v));
}
