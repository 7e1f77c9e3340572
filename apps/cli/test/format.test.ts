import type { MemberView } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { encodeTags } from '@swim/adapter-memberlist';
import { changeJson, changeLine } from '../src/output/changes.js';
import { memberJson, membersTable } from '../src/output/members.js';

const view = (name: string, extra: Partial<MemberView> = {}): MemberView => ({
  name,
  address: '10.0.0.3:7946',
  meta: new Uint8Array(0),
  incarnation: 1,
  state: 'alive',
  stateChangedAt: 0,
  ...extra,
});
const at = new Date('2026-11-29T18:00:00.000Z');

describe('output', () => {
  it('log lines', () => {
    expect(changeLine(at, 'n2', { event: 'join', member: view('n3'), previous: undefined })).toBe(
      '2026-11-29T18:00:00.000Z n2 join n3 (10.0.0.3:7946, incarnation 1)',
    );
    expect(changeLine(at, 'n2', { event: 'dead', member: view('n3', { state: 'dead' }), previous: 'suspect', cause: { kind: 'timeout' } as never })).toBe(
      '2026-11-29T18:00:00.000Z n2 dead n3 (10.0.0.3:7946, incarnation 1, suspicion timed out)',
    );
    expect(changeJson(at, 'n2', { event: 'left', member: view('n3', { state: 'left' }), previous: 'alive' })).toEqual({
      time: '2026-11-29T18:00:00.000Z',
      self: 'n2',
      event: 'left',
      member: { name: 'n3', address: '10.0.0.3:7946', state: 'left', incarnation: 1, tags: { role: '' } },
      previous: 'alive',
    });
    // A dead line names how the death was decided and who decided it (the soak tells verdicts from gossiped deaths by it).
    expect(changeJson(at, 'n2', { event: 'dead', member: view('n3', { state: 'dead' }), previous: 'suspect', cause: { kind: 'gossip', confirmations: 0, by: 'n5' } })).toMatchObject({
      event: 'dead',
      cause: 'gossip',
      by: 'n5',
    });
  });

  it('members: tags as Serf reads them; text meta is the legacy tag role; other bytes as hex too', () => {
    expect(memberJson(view('a', { meta: encodeTags({ role: 'web' }) }))).toEqual({ name: 'a', address: '10.0.0.3:7946', state: 'alive', incarnation: 1, tags: { role: 'web' } });
    expect(memberJson(view('a', { meta: encodeTags({}) })).tags).toEqual({});
    // What an older swim agent sent (UTF-8 JSON): Serf shows it as the role, so do we.
    expect(memberJson(view('old', { meta: new TextEncoder().encode('{"role":"web"}') }))).toMatchObject({ tags: { role: '{"role":"web"}' } });
    expect(memberJson(view('old', { meta: new TextEncoder().encode('{"role":"web"}') })).metaHex).toBeUndefined();
    expect(memberJson(view('empty')).tags).toEqual({ role: '' });
    // Not UTF-8: the role is lossy, the bytes go along.
    expect(memberJson(view('b', { meta: new Uint8Array([1, 0xc3]) }))).toMatchObject({ tags: { role: '\u0001\ufffd' }, metaHex: '01c3' });
    const table = membersTable({
      self: 'a',
      healthScore: 0,
      members: [
        memberJson(view('a', { meta: encodeTags({ role: 'web', dc: 'eu' }) })),
        memberJson(view('bb', { state: 'dead', incarnation: 12, meta: encodeTags({}) })),
        memberJson(view('c', { meta: new Uint8Array([1, 0xc3]) })),
        memberJson(view('d', { meta: encodeTags({ evil: '\u001b[2J\n' }) })),
      ],
    });
    expect(table).toBe(
      [
        'NAME      ADDRESS        STATE  INCARNATION  TAGS',
        'a (self)  10.0.0.3:7946  alive  1            dc=eu,role=web',
        'bb        10.0.0.3:7946  dead   12',
        'c         10.0.0.3:7946  alive  1            hex:01c3',
        'd         10.0.0.3:7946  alive  1            evil=\\u001b[2J\\u000a',
        '',
        'health score of a: 0',
      ].join('\n'),
    );
  });
});
