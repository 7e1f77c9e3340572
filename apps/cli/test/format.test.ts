import type { MemberView } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { encodeMeta } from '../src/args.js';
import { changeJson, changeLine, memberJson, membersTable } from '../src/format.js';

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
      member: { name: 'n3', address: '10.0.0.3:7946', state: 'left', incarnation: 1, meta: {} },
      previous: 'alive',
    });
  });

  it('members: JSON metadata decoded, other bytes as hex; the table', () => {
    expect(memberJson(view('a', { meta: encodeMeta({ role: 'web' }) })).meta).toEqual({ role: 'web' });
    expect(memberJson(view('b', { meta: new Uint8Array([1, 2]) }))).toMatchObject({ meta: null, metaHex: '0102' });
    const table = membersTable({
      self: 'a',
      healthScore: 0,
      members: [memberJson(view('a', { meta: encodeMeta({ role: 'web', dc: 'eu' }) })), memberJson(view('bb', { state: 'dead', incarnation: 12 }))],
    });
    expect(table).toBe(
      [
        'NAME      ADDRESS        STATE  INCARNATION  META',
        'a (self)  10.0.0.3:7946  alive  1            role=web,dc=eu',
        'bb        10.0.0.3:7946  dead   12',
        '',
        'health score of a: 0',
      ].join('\n'),
    );
  });
});
