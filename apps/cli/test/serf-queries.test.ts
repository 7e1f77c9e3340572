/**
 * Serf's queries and key rotation between real Serf agents (Debian's serf 0.9) and
 * `swim agent --wire memberlist`, on loopback: `serf query` answered by swim agents, `swim query`
 * answered by Serf's event handlers, and `serf keys` / `swim keys` rotating a mixed cluster's key.
 * The command outputs are printed for docs/memberlist-interop.md.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeSerf, newSerfKey, type SerfAgent } from '@swim/test-support';
import { swim, type Agent } from './agents.js';
import { mixedCluster, SERF_TIMEOUT_MS, serfView } from './serf-cluster.js';

const CONVERGE_TIMEOUT_MS = 60_000;

describeSerf("Serf's queries and key rotation with swim agents on memberlist's wire", () => {
  const { serf, startSwim, seen } = mixedCluster();
  const dir = mkdtempSync(join(tmpdir(), 'swim-serfq-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function converged(observers: ReadonlyArray<SerfAgent | Agent>, names: readonly string[]): Promise<void> {
    for (const observer of observers) for (const name of names) if (name !== observer.name) await seen(observer, name, 'alive', CONVERGE_TIMEOUT_MS);
  }

  /** Nobody was ever suspected or failed: Serf's logs and the swim agents' events. */
  function noFailures(serfs: readonly SerfAgent[], swims: readonly Agent[]): void {
    for (const agent of serfs) {
      const log = serf.logTail(agent, 100_000);
      expect(log, `${agent.name} suspected or failed a member`).not.toMatch(/Suspect |Marking .* as failed|EventMemberFailed/);
      // Nothing of ours that Serf could not read or place (messages, replies, relays); the one error
      // expected is the refused removal of the primary key at the end of the rotation test.
      const refused = log.split('\n').filter((line) => /\[ERR\] serf|unknown type|non-running query|ID mismatch|Failed to (decode|deliver)/.test(line) && !/Removing the primary key is not allowed/.test(line));
      expect(refused, `${agent.name} refused something we sent`).toEqual([]);
      const warnings = log.split('\n').filter((line) => line.includes('[WARN]'));
      if (warnings.length > 0) console.log(`${agent.name} warnings:\n${warnings.join('\n')}`);
    }
    for (const agent of swims) expect(agent.lines.filter((line) => line.event === 'suspect' || line.event === 'dead'), `${agent.name} suspected or failed a member`).toEqual([]);
  }

  /** `swim ARGS --rpc` of `agent`: its stdout and exit code. */
  async function swimAt(agent: Agent, args: string[]): Promise<{ code: number | null; stdout: string }> {
    const result = await swim([...args, '--rpc', agent.rpc]);
    return { code: result.code, stdout: result.stdout.trimEnd() };
  }

  it('serf keys from a Serf agent rotates swim agents too (4/4 each step); then swim keys rotates back', async () => {
    const K = newSerfKey();
    const K2 = newSerfKey();
    const [s1, s2] = await serf.startMany(2, (i) => ({ node: `serf-${i + 1}`, encrypt: K }));
    await serf.join(s2!, s1!);
    const keyringFile = join(dir, 'swim-1.keyring');
    const w1 = await startSwim('swim-1', { join: s1!, extra: ['--encrypt', K, '--keyring-file', keyringFile] });
    const w2 = await startSwim('swim-2', { join: s2!, extra: ['--encrypt', K] });
    const names = ['serf-1', 'serf-2', 'swim-1', 'swim-2'];
    await converged([s1!, s2!, w1, w2], names);

    const outputs: string[] = [];
    const serfKeys = async (args: string[]) => {
      const out = (await serf.run(s1!, ['keys', ...args])).trimEnd();
      outputs.push(`$ serf keys ${args.join(' ').replaceAll(K, 'K').replaceAll(K2, 'K2')}\n${out.replaceAll(K, 'K').replaceAll(K2, 'K2')}`);
      return out;
    };
    expect(await serfKeys(['-install', K2])).toBe('==> Installing key on all members...\n==> Successfully installed key!');
    expect(await serfKeys(['-list'])).toMatch(new RegExp(`==> Keys gathered, listing cluster keys...\\n\\n(${escape(K)}  \\[4/4\\]\\n${escape(K2)}  \\[4/4\\]|${escape(K2)}  \\[4/4\\]\\n${escape(K)}  \\[4/4\\])$`));
    expect(await serfKeys(['-use', K2])).toBe('==> Changing primary key on all members...\n==> Successfully changed primary key!');
    expect(await serfKeys(['-remove', K])).toBe('==> Removing key on all members...\n==> Successfully removed key!');
    expect(await serfKeys(['-list'])).toBe(`==> Asking all members for installed keys...\n==> Keys gathered, listing cluster keys...\n\n${K2}  [4/4]`);
    // The swim agent's keyring file holds the new key only, as a Serf agent's would.
    await serf.waitFor(() => JSON.parse(readFileSync(keyringFile, 'utf8')).join() === K2, { timeoutMs: 5_000, describe: 'swim-1 to write its keyring file' });

    // A newcomer with the new key joins; one with only the old key does not.
    const fresh = await startSwim('swim-k2', { join: s2!, extra: ['--encrypt', K2] });
    await seen(s1!, 'swim-k2', 'alive');
    await seen(w2, 'swim-k2', 'alive');
    const stale = await startSwim('swim-k', { join: s2!, extra: ['--encrypt', K] });
    await serf.waitFor(() => stale.lines.some((line) => line.event === 'join-failed'), { timeoutMs: SERF_TIMEOUT_MS, describe: () => `swim-k's join to fail; its log: ${JSON.stringify(stale.lines.slice(-5))}` });
    expect(serfView(await serf.members(s1!))['swim-k']).toBeUndefined();
    stale.child.kill('SIGKILL');
    // The newcomer leaves gracefully: the rotation back runs on the four.
    expect((await swimAt(fresh, ['leave'])).code).toBe(0);
    await seen(s1!, 'swim-k2', 'left');
    await seen(w1, 'swim-k2', 'left');

    // And back, with swim keys from a swim agent.
    const swimKeys = async (args: string[]) => {
      const { code, stdout } = await swimAt(w2, ['keys', ...args]);
      outputs.push(`$ swim keys ${args.join(' ').replaceAll(K2, 'K2').replaceAll(K, 'K')}   (exit ${code})\n${stdout.replaceAll(K2, 'K2').replaceAll(K, 'K')}`);
      return { code, stdout };
    };
    expect(await swimKeys(['install', K])).toEqual({ code: 0, stdout: '==> Installing key on all members...\n==> Successfully installed key!' });
    expect(await swimKeys(['use', K])).toEqual({ code: 0, stdout: '==> Changing primary key on all members...\n==> Successfully changed primary key!' });
    expect(await swimKeys(['remove', K2])).toEqual({ code: 0, stdout: '==> Removing key on all members...\n==> Successfully removed key!' });
    expect(await swimKeys(['list'])).toEqual({ code: 0, stdout: `==> Asking all members for installed keys...\n==> Keys gathered, listing cluster keys...\n\n${K}  [4/4]` });
    expect(await serfKeys(['-list'])).toBe(`==> Asking all members for installed keys...\n==> Keys gathered, listing cluster keys...\n\n${K}  [4/4]`);
    // Serf's wording on partial failure, exit 1: removing the primary key.
    const refused = await swimKeys(['remove', K]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe(
      [
        '==> Removing key on all members...',
        'failed:  serf-1  Removing the primary key is not allowed',
        'failed:  serf-2  Removing the primary key is not allowed',
        'failed:  swim-1  Removing the primary key is not allowed',
        'failed:  swim-2  Removing the primary key is not allowed',
        '',
        'Error removing key: 4/4 nodes reported failure',
      ].join('\n'),
    );
    noFailures([s1!, s2!], [w1, w2]);
    console.log(`key rotation outputs:\n${outputs.join('\n\n')}`);
  }, 240_000);

  /** A Serf agent's query handler script: answers "NAME got PAYLOAD" (Serf sends the payload on stdin). */
  function handlerScript(): string {
    const script = join(dir, 'answer.sh');
    writeFileSync(script, '#!/bin/sh\nprintf "%s got %s" "$SERF_SELF_NAME" "$(cat)"\n');
    chmodSync(script, 0o755);
    return script;
  }

  type SerfQueryJson = { Acks: string[]; Responses: Record<string, string> };

  it('serf query reaches swim agents (acks, filters, relays) and swim agents query Serf agents', async () => {
    const script = handlerScript();
    const [s1, s2] = await serf.startMany(2, (i) => ({ node: `serf-${i + 1}`, tags: { role: i === 0 ? 'web' : 'db' }, args: [`-event-handler=query:greet=${script}`] }));
    await serf.join(s2!, s1!);
    const w1 = await startSwim('swim-1', { join: s1!, extra: ['--tag', 'role=web', '--query-handler', `greet=${script}`] });
    const w2 = await startSwim('swim-2', { join: s2!, extra: ['--tag', 'role=db', '--query-handler', `greet=${script}`] });
    const names = ['serf-1', 'serf-2', 'swim-1', 'swim-2'];
    await converged([s1!, s2!, w1, w2], names);

    const outputs: string[] = [];
    const serfQuery = async (args: string[]): Promise<SerfQueryJson> => {
      outputs.push(`$ serf query ${args.join(' ')}\n${(await serf.run(s1!, ['query', ...args])).trimEnd()}`);
      return JSON.parse(await serf.run(s1!, ['query', '-format=json', ...args])) as SerfQueryJson;
    };
    const sorted = (list: readonly string[]) => [...list].sort();

    const answers = (payload: string, from: readonly string[]) => Object.fromEntries(from.map((name) => [name, `${name} got ${payload}`]));
    const all = await serfQuery(['greet', 'hi']);
    expect(sorted(all.Acks)).toEqual(names);
    expect(all.Responses).toEqual(answers('hi', names));
    const byNode = await serfQuery(['-node=swim-1', '-node=serf-2', 'greet', 'x']);
    expect(sorted(byNode.Acks)).toEqual(['serf-2', 'swim-1']);
    expect(byNode.Responses).toEqual(answers('x', ['serf-2', 'swim-1']));
    const byTag = await serfQuery(['-tag', 'role=^web$', 'greet', 'y']);
    expect(sorted(byTag.Acks)).toEqual(['serf-1', 'swim-1']);
    expect(byTag.Responses).toEqual(answers('y', ['serf-1', 'swim-1']));
    const relayed = await serfQuery(['-relay-factor=1', 'greet', 'z']);
    expect(sorted(relayed.Acks)).toEqual(names);
    expect(relayed.Responses).toEqual(answers('z', names));

    // swim query from a swim agent: the Serf agents' event handlers answer, and the swim agents'.
    const swimQuery = async (args: string[]) => {
      const text = await swimAt(w2, ['query', ...args]);
      outputs.push(`$ swim query ${args.join(' ')}   (exit ${text.code})\n${text.stdout}`);
      const json = await swimAt(w2, ['query', '--json', ...args]);
      expect(json.code).toBe(0);
      return JSON.parse(json.stdout) as SerfQueryJson;
    };
    const asked = await swimQuery(['greet', 'from-swim']);
    expect(sorted(asked.Acks)).toEqual(names);
    expect(asked.Responses).toEqual(answers('from-swim', names));
    const askedSerfOnly = await swimQuery(['--tag', 'role=^db$', '--relay-factor', '1', 'greet', 'db-only']);
    expect(sorted(askedSerfOnly.Acks)).toEqual(['serf-2', 'swim-2']);
    expect(askedSerfOnly.Responses).toEqual(answers('db-only', ['serf-2', 'swim-2']));
    // serf reachability: _serf_ping, acked by every member, the swim agents included.
    const reachability = (await serf.run(s1!, ['reachability'])).trimEnd();
    outputs.push(`$ serf reachability\n${reachability}`);
    expect(reachability).toMatch(/Successfully contacted all live nodes/);
    // The swim agents sent their acks through relays too (Serf's relayResponse), and saw no malformed traffic.
    for (const agent of [w1, w2]) {
      const { queries } = JSON.parse((await swimAt(agent, ['stats', '--json'])).stdout) as { queries: Record<string, number> };
      expect(queries['relaysSent'], `${agent.name} relayed its acks`).toBeGreaterThanOrEqual(2);
      expect(queries['malformed'], `${agent.name} read every Serf query`).toBe(0);
      // Each serf query ran twice (text, then JSON): swim-1 was selected by all four, swim-2 by two; plus
      // _serf_ping; and swim-2's first query (twice), not its db-only one.
      expect(queries['accepted'], `${agent.name} accepted the queries that selected it`).toBe(agent === w1 ? 11 : 5);
    }

    noFailures([s1!, s2!], [w1, w2]);
    console.log(`query outputs:\n${outputs.join('\n\n')}`);
  }, 240_000);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

