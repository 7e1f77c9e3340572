import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyring } from '@swim/encryption';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyringWrites, serfKeyring } from '../src/agent/serf-keyring.js';
import { formatSerfKeys } from '../src/output/serf-keys.js';

const K = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const base = { numNodes: 3, numResp: 3, numErr: 0, messages: {}, keys: {}, primaryKeys: {} };

describe('swim keys in memberlist mode prints as serf keys (serf cmd/serf/command/keys.go)', () => {
  it('successes', () => {
    expect(formatSerfKeys({ ...base, op: 'install' })).toEqual({ text: '==> Installing key on all members...\n==> Successfully installed key!', exitCode: 0 });
    expect(formatSerfKeys({ ...base, op: 'use' }).text).toBe('==> Changing primary key on all members...\n==> Successfully changed primary key!');
    expect(formatSerfKeys({ ...base, op: 'remove' }).text).toBe('==> Removing key on all members...\n==> Successfully removed key!');
    expect(formatSerfKeys({ ...base, op: 'list', keys: { [K2]: 1, [K]: 3 } }).text).toBe(
      ['==> Asking all members for installed keys...', '==> Keys gathered, listing cluster keys...', '', `${K}  [3/3]`, `${K2}  [1/3]`].join('\n'),
    );
  });

  it('failures: columnized failed lines, then Serf’s error; exit 1', () => {
    const report = { ...base, op: 'list' as const, numErr: 2, messages: { 'swim-10': 'disk full', b: 'Keyring is empty (encryption not enabled)' }, error: '2/3 nodes reported failure' };
    expect(formatSerfKeys(report)).toEqual({
      text: ['==> Asking all members for installed keys...', 'failed:  b        Keyring is empty (encryption not enabled)', 'failed:  swim-10  disk full', '', 'Failed to gather member keys: 2/3 nodes reported failure'].join('\n'),
      exitCode: 1,
    });
    expect(formatSerfKeys({ ...base, op: 'install', numResp: 2, error: '2/3 nodes reported success' })).toEqual({
      text: '==> Installing key on all members...\n\nError installing key: 2/3 nodes reported success',
      exitCode: 1,
    });
  });

  it('names and messages from the cluster cannot drive the terminal', () => {
    const report = { ...base, op: 'use' as const, numErr: 1, messages: { 'x\u001b[2J': 'y\u202e' }, error: '1/3 nodes reported failure' };
    expect(formatSerfKeys(report).text).toContain('failed:  x\\u001b[2J  y\\u202e');
  });
});

describe("the agent's keyring behind Serf's key queries", () => {
  const dir = mkdtempSync(join(tmpdir(), 'swim-serf-keyring-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function hooked(file: string | undefined) {
    const keyring = Keyring.from([K]);
    const writes = new KeyringWrites(file);
    keyring.onChange((keys) => void writes.save(keys).catch(() => undefined));
    return { keyring, hook: serfKeyring(keyring, writes) };
  }

  it('a change is answered once it is in the keyring file', async () => {
    const file = join(dir, 'ring.json');
    const { keyring, hook } = hooked(file);
    await hook.install(Buffer.from(K2, 'base64'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([K, K2]);
    await hook.use(Buffer.from(K2, 'base64'));
    await hook.remove(Buffer.from(K, 'base64'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([K2]);
    expect(hook.list()).toEqual(keyring.list());
    // A change that changes nothing waits for no write.
    await hook.install(Buffer.from(K2, 'base64'));
  });

  it('a keyring file that cannot be written fails the change (the member answers Result false)', async () => {
    const { hook } = hooked(join(dir, 'no-such-dir', 'ring.json'));
    await expect(hook.install(Buffer.from(K2, 'base64'))).rejects.toThrow(/cannot write keyring file/);
  });
});
