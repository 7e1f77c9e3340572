import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memberlistCodec } from '@swim/adapter-memberlist';
import { presets } from '@swim/core';
import { planRestore, SnapshotOwnerError } from '../src/agent/snapshot.js';
import { emptyState, MAX_LINE_BYTES, MAX_READ_BYTES, readSnapshotFile, replay, SnapshotFileError, SnapshotLog } from '../src/snapshot/log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempFile(name = 'snapshot.jsonl'): string {
  const dir = mkdtempSync(join(tmpdir(), 'swim-snapshot-'));
  dirs.push(dir);
  return join(dir, name);
}

const errors: Error[] = [];
const open = (path: string, minCompactBytes?: number) =>
  new SnapshotLog(path, readSnapshotFile(path, { maxMembers: 1000 }).state, { onError: (e) => errors.push(e), ...(minCompactBytes === undefined ? {} : { minCompactBytes }) });
const member = (name: string, incarnation = 1, meta = '') => ({ name, address: `127.0.0.1:${7000 + Number(name.slice(1))}`, incarnation, meta });

describe('SnapshotLog', () => {
  it('appends each change as a line and replays to the same state', () => {
    const path = tempFile();
    const log = open(path);
    log.self({ name: 'me', address: '127.0.0.1:7000', incarnation: 3 });
    log.alive(member('m1'));
    log.alive(member('m2', 4, 'AQI='));
    log.alive(member('m3'));
    log.alive(member('m3')); // unchanged: not written
    log.notAlive('m1');
    log.clocks({ clock: 5, eventClock: 9, queryClock: 2 });
    log.self({ name: 'me', address: '127.0.0.1:7000', incarnation: 4 });
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    // The compacted state at open (header, clocks), then one line per change.
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['snapshot', 'clocks', 'self', 'alive', 'alive', 'alive', 'not-alive', 'clocks', 'self']);
    expect(log.stats).toMatchObject({ appended: 7, compactions: 1, writeErrors: 0 });
    const { state, skipped } = readSnapshotFile(path, { maxMembers: 1000 });
    expect(skipped).toBe(0);
    expect(state.self).toEqual({ name: 'me', address: '127.0.0.1:7000', incarnation: 4 });
    expect([...state.members.values()]).toEqual([member('m2', 4, 'AQI='), member('m3')]);
    expect(state.clocks).toEqual({ clock: 5, eventClock: 9, queryClock: 2 });
    expect(state.left).toBe(false);
    log.close();
  });

  it('records a graceful leave, synced, and nothing after it', () => {
    const path = tempFile();
    const log = open(path);
    log.alive(member('m1'));
    log.leave();
    log.alive(member('m2'));
    log.self({ name: 'me', address: 'x:1', incarnation: 9 });
    log.close();
    const { state } = readSnapshotFile(path, { maxMembers: 1000 });
    expect(state.left).toBe(true);
    expect([...state.members.keys()]).toEqual(['m1']);
    expect(state.self).toBeUndefined();
  });

  it('compacts past twice its compacted size (atomically: no temporary file left), to the same state', () => {
    const path = tempFile();
    const log = open(path, 4_000);
    for (let i = 1; i <= 20; i++) log.alive(member(`m${i}`));
    let largest = 0;
    for (let round = 2; round < 200; round++) {
      log.alive(member(`m${(round % 20) + 1}`, round));
      log.clocks({ clock: round, eventClock: 0, queryClock: 0 });
      largest = Math.max(largest, statSync(path).size);
    }
    const compactedSize = 20 * 70 + 100;
    expect(log.stats.compactions, 'compacted more than once').toBeGreaterThan(3);
    // Never much past the threshold: max(4000, twice the compacted ~1.5 kB) plus the line that crossed it.
    expect(largest).toBeLessThan(Math.max(4_000, 2 * compactedSize) + 200);
    expect(readdirSync(join(path, '..'))).toEqual(['snapshot.jsonl']);
    const { state } = readSnapshotFile(path, { maxMembers: 1000 });
    expect(state).toEqual(log.state);
    expect(state.clocks.clock).toBe(199);
    expect(state.members.get('m20')?.incarnation).toBe(199);
    log.close();
  });

  it('skips corrupt lines, counting each with its line number, and applies the rest', () => {
    const text = [
      JSON.stringify({ type: 'self', name: 'me', address: 'a:1', incarnation: 7 }),
      'garbage',
      JSON.stringify(member('m1')),
      JSON.stringify({ type: 'alive', ...member('m2') }),
      JSON.stringify({ type: 'alive', name: 'm3', address: '', incarnation: -1, meta: '!!' }),
      JSON.stringify({ type: 'not-alive', name: '\ud800' }),
      JSON.stringify({ type: 'clocks', clock: 3, eventClock: 'x', queryClock: 1 }),
      JSON.stringify({ type: 'from-the-future', x: 1 }),
      '[1,2,3]',
      '',
      'x'.repeat(MAX_LINE_BYTES + 1),
      JSON.stringify({ type: 'alive', ...member('m4') }),
      '{"type":"alive","name":"m5","addr',
    ].join('\n');
    const { state, skipped, warnings } = replay(text, { maxMembers: 10 });
    expect(state.self?.incarnation).toBe(7);
    expect([...state.members.keys()]).toEqual(['m2', 'm4']);
    expect(state.clocks).toEqual({ clock: 0, eventClock: 0, queryClock: 0 });
    expect(skipped).toBe(9);
    expect(warnings).toEqual([
      'line 2: not JSON',
      'line 3: no record type',
      'line 5: alive record: address is not an address, incarnation is not an incarnation, meta is not base64',
      'line 6: not-alive record: name is not a member name',
      'line 7: clocks record: eventClock is not a non-negative integer',
      'line 8: unknown record type "from-the-future"',
      'line 9: not a JSON object',
      `line 11: longer than ${MAX_LINE_BYTES} characters`,
      'line 13: not JSON (a torn last line?)',
    ]);
  });

  it('a log cut at any byte (a kill -9 mid-write, a full disk) replays without throwing, to a state the full log went through', () => {
    const path = tempFile();
    const log = open(path);
    log.self({ name: 'me', address: 'a:1', incarnation: 2 });
    for (let i = 1; i <= 5; i++) log.alive(member(`m${i}`, i, 'AQID'));
    log.notAlive('m2');
    log.clocks({ clock: 4, eventClock: 4, queryClock: 4 });
    log.close();
    const full = readFileSync(path);
    for (let cut = 0; cut <= full.length; cut++) {
      const { state, skipped } = replay(full.subarray(0, cut).toString('utf8'), { maxMembers: 10 });
      expect(skipped, `cut at ${cut}`).toBeLessThanOrEqual(1);
      for (const [name, m] of state.members) expect(m, `cut at ${cut}`).toEqual(member(name, Number(name.slice(1)), 'AQID'));
    }
    // Reopening a torn log rewrites it: the next line starts on a clean line.
    writeFileSync(path, full.subarray(0, full.length - 7));
    const reopened = open(path);
    reopened.alive(member('m9'));
    reopened.close();
    const again = readSnapshotFile(path, { maxMembers: 10 });
    expect(again.skipped).toBe(0);
    expect(again.state.members.has('m9')).toBe(true);
  });

  it('is bounded: no more than maxMembers members, no more than MAX_READ_BYTES read', () => {
    const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify({ type: 'alive', ...member(`m${i + 1}`) })).join('\n');
    const bounded = replay(lines, { maxMembers: 10 });
    expect(bounded.state.members.size).toBe(10);
    expect(bounded.skipped).toBe(2);
    expect(bounded.warnings[0]).toBe('line 11: more than 10 members (maxMembers)');

    const path = tempFile();
    writeFileSync(path, `${JSON.stringify({ type: 'alive', ...member('m1') })}\n`);
    truncateSync(path, MAX_READ_BYTES + 1_000_000); // a huge file of zero bytes after one good line
    const huge = readSnapshotFile(path, { maxMembers: 10 });
    expect(huge.unread).toBe(1_000_000);
    expect([...huge.state.members.keys()]).toEqual(['m1']);
    expect(huge.skipped).toBe(1);
  });

  it('fails clearly when the path cannot be read or written', () => {
    const dir = join(tempFile(), '..');
    expect(() => readSnapshotFile(dir, { maxMembers: 10 })).toThrow(new SnapshotFileError(`snapshot file ${dir} is not a regular file`));
    const missing = join(dir, 'no', 'such', 'dir', 'snapshot.jsonl');
    expect(readSnapshotFile(missing, { maxMembers: 10 }).state).toEqual(emptyState());
    expect(() => new SnapshotLog(missing, emptyState(), { onError: () => {} })).toThrow(/^cannot write snapshot file .*snapshot\.jsonl: ENOENT/);
  });
});

describe('planRestore', () => {
  const config = presets.lan();
  const write = (records: readonly object[]) => {
    const path = tempFile();
    writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    return path;
  };
  const alive = (name: string, address: string) => ({ type: 'alive', name, address, incarnation: 2, meta: '' });

  it('a first start restores nothing', () => {
    const plan = planRestore(tempFile(), { name: 'me', config, codec: undefined, rejoinAfterLeave: false });
    expect(plan).toMatchObject({ restore: undefined, clocks: undefined, rejoin: [] });
  });

  it('restores incarnation, members and clocks, and rejoins the members', () => {
    const path = write([{ type: 'self', name: 'me', address: '127.0.0.1:1', incarnation: 6 }, alive('a', '127.0.0.1:2'), alive('b', '127.0.0.1:3'), { type: 'clocks', clock: 1, eventClock: 2, queryClock: 3 }]);
    const plan = planRestore(path, { name: 'me', config, codec: undefined, rejoinAfterLeave: false });
    expect(plan.restore).toMatchObject({ name: 'me', incarnation: 6, left: false });
    expect(plan.rejoin).toEqual(['127.0.0.1:2', '127.0.0.1:3']);
    expect(plan.clocks).toEqual({ clock: 1, eventClock: 2, queryClock: 3 });
  });

  it('after a graceful leave: resumes the incarnation but does not rejoin, unless --rejoin-after-leave', () => {
    const records = [{ type: 'self', name: 'me', address: '127.0.0.1:1', incarnation: 6 }, alive('a', '127.0.0.1:2'), { type: 'leave' }];
    const plan = planRestore(write(records), { name: 'me', config, codec: undefined, rejoinAfterLeave: false });
    expect(plan.restore).toMatchObject({ incarnation: 6, members: [] });
    expect(plan.rejoin).toEqual([]);
    expect(plan.notes.join('\n')).toMatch(/left gracefully; not rejoining/);
    const rejoining = planRestore(write(records), { name: 'me', config, codec: undefined, rejoinAfterLeave: true });
    expect(rejoining.rejoin).toEqual(['127.0.0.1:2']);
    expect(rejoining.state.left).toBe(false);
  });

  it("refuses another agent's file, and drops members the wire cannot take", () => {
    const other = write([{ type: 'self', name: 'other', address: '127.0.0.1:1', incarnation: 6 }]);
    expect(() => planRestore(other, { name: 'me', config, codec: undefined, rejoinAfterLeave: false })).toThrow(SnapshotOwnerError);
    const path = write([alive('a', 'host.example:7946'), alive('b', '127.0.0.1:2'), alive('c', '127.0.0.1:2'), alive('me', '127.0.0.1:9')]);
    const plan = planRestore(path, { name: 'me', config, codec: memberlistCodec(), rejoinAfterLeave: false });
    expect(plan.rejoin).toEqual(['127.0.0.1:2']);
    expect(plan.notes[0]).toMatch(/skipped 3 records/);
  });
});
