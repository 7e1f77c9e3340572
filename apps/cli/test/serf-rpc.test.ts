/**
 * The real `serf` CLI (Debian's serf 0.9.4) driving `swim agent --serf-rpc`, in @swim's wire
 * and in memberlist's (next to real Serf agents): members, filters, join, event, tags, info,
 * keys, query, rtt, force-leave, monitor, leave, with and without -rpc-auth.
 * The outputs are logged for docs/serf-rpc.md.
 */
import { execFile, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, afterEach, expect, it } from 'vitest';
import { describeSerf, newSerfKey, SerfAgents } from '@swim/test-support';
import { killAll, membersOf, startAgent, until, type Agent } from './agents.js';

const SERF = '/usr/bin/serf';

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `serf ARGS`: its exit code and output (recorded for the docs). */
function serf(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(SERF, args, { timeout: 20_000, env: { PATH: process.env['PATH'] ?? '', ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      console.log(`$ serf ${args.join(' ')}\n${stdout}${stderr}(exit ${code})`);
      resolve({ code, stdout, stderr });
    });
  });
}

function serfRpcOf(agent: Agent): string {
  const start = agent.lines.find((line) => line.event === 'start');
  const address = start?.['serfRpc'];
  if (typeof address !== 'string') throw new Error(`${agent.name} serves no Serf RPC`);
  return address;
}

const agents: Agent[] = [];
async function swimAgent(name: string, options: { join?: Agent | string; tags?: Record<string, string>; extra?: string[] } = {}): Promise<Agent & { readonly serfRpc: string }> {
  const extra = ['--serf-rpc', '127.0.0.1:0', ...(options.extra ?? [])];
  for (const [key, value] of Object.entries(options.tags ?? {})) extra.push('--tag', `${key}=${value}`);
  const join = options.join === undefined ? [] : [typeof options.join === 'string' ? options.join : options.join.address];
  const agent = await startAgent(name, { extra, join, ...(extra.includes('memberlist') ? { timing: 'preset' as const } : {}) });
  agents.push(agent);
  return Object.assign(agent, { serfRpc: serfRpcOf(agent) });
}

/** `serf members` rows: name, address, status, tags (the CLI's columns). */
function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.trim().split(/\s{2,}/))
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

async function listed(rpc: string, expected: number): Promise<void> {
  await until(`serf members at ${rpc} lists ${expected} alive`, 30_000, async () => rows((await serf(['members', `-rpc-addr=${rpc}`, '-status=alive'])).stdout).length === expected);
}

afterEach(() => {
  for (const agent of agents.splice(0)) if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL');
});
afterAll(() => killAll());

describeSerf('the serf CLI against swim agent --serf-rpc (@swim wire)', () => {
  it('members (with filters and -format=json), join, event, tags, info, monitor, leave', async () => {
    const a = await swimAgent('a', { tags: { role: 'web' } });
    const b = await swimAgent('b', { join: a, tags: { role: 'db' } });
    const rpc = `-rpc-addr=${a.serfRpc}`;
    await listed(a.serfRpc, 2);

    const members = await serf(['members', rpc]);
    expect(members.code).toBe(0);
    expect(rows(members.stdout)).toEqual([
      ['a', a.address, 'alive', 'role=web'],
      ['b', b.address, 'alive', 'role=db'],
    ]);
    expect(rows((await serf(['members', rpc, '-status', 'alive', '-tag', 'role=web'])).stdout)).toEqual([['a', a.address, 'alive', 'role=web']]);
    expect(rows((await serf(['members', rpc, '-tag', 'role=we'])).stdout)).toEqual([]);
    expect(rows((await serf(['members', rpc, '-name', 'b|x'])).stdout).map((r) => r[0])).toEqual(['b']);
    const json = JSON.parse((await serf(['members', rpc, '-format=json'])).stdout) as { members: Array<Record<string, unknown>> };
    expect(json.members.find((m) => m['name'] === 'b')).toEqual({
      name: 'b',
      addr: b.address,
      port: Number(b.address.split(':')[1]),
      tags: { role: 'db' },
      status: 'alive',
      protocol: { min: 1, max: 2, version: 2 },
    });

    const c = await swimAgent('c');
    const joined = await serf(['join', rpc, c.address]);
    expect(joined).toMatchObject({ code: 0, stdout: 'Successfully joined cluster by contacting 1 nodes.\n' });
    await listed(a.serfRpc, 3);
    const failedJoin = await serf(['join', rpc, '127.0.0.1:1']);
    expect(failedJoin.code).toBe(1);
    // The CLI writes errors to stdout too (its BasicUi has no error writer).
    expect(failedJoin.stdout).toMatch(/^Error joining the cluster: 1 error occurred:\n\t\* Failed to join 127\.0\.0\.1:1: /);

    const event = await serf(['event', rpc, 'deploy', 'v2']);
    expect(event).toMatchObject({ code: 0, stdout: "Event 'deploy' dispatched! Coalescing enabled: true\n" });
    await until('b receives the user event', 10_000, () => b.lines.some((line) => line.event === 'user-event' && line['name'] === 'deploy'));
    expect((await serf(['event', rpc, 'big', 'x'.repeat(600)])).stdout).toBe('Error sending event: user event exceeds configured limit of 512 bytes before encoding\n');

    expect(await serf(['tags', rpc, '-set', 'dc=lo', '-delete', 'role'])).toMatchObject({ code: 0, stdout: 'Successfully updated agent tags\n' });
    await until('b sees the new tags of a', 10_000, async () => JSON.stringify((await membersOf(b)).members.find((m) => m.name === 'a')?.tags) === '{"dc":"lo"}');

    const info = await serf(['info', rpc]);
    expect(info.code).toBe(0);
    expect(info.stdout).toContain('agent:\n\tname = a\n');
    expect(info.stdout).toMatch(/serf:\n(\t.*\n)*\tmembers = 3\n/);

    // serf monitor: `stream *` then `monitor`; the kept lines first, then new ones, until interrupted.
    const monitor = spawn(SERF, ['monitor', rpc, '-log-level=INFO'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let monitored = '';
    monitor.stdout.on('data', (chunk: Buffer) => (monitored += chunk.toString()));
    await until('serf monitor prints the kept log lines', 10_000, () => /\[INFO\] swim: listening on /.test(monitored));
    await serf(['event', rpc, 'while-monitoring']);
    await until('serf monitor prints new lines and events', 10_000, () => monitored.includes('while-monitoring') || monitored.includes('member-'));
    const monitorExit = new Promise<number | null>((resolve) => monitor.once('exit', (code) => resolve(code)));
    monitor.kill('SIGINT');
    expect(await monitorExit).toBe(0);
    console.log(`$ serf monitor ${rpc} -log-level=INFO\n${monitored}`);

    // force-leave of a node nobody knows: not an error in Serf.
    expect(await serf(['force-leave', rpc, 'nobody'])).toMatchObject({ code: 0, stdout: '' });

    const left = await serf(['leave', rpc]);
    expect(left).toMatchObject({ code: 0, stdout: 'Graceful leave complete\n' });
    expect(await a.exited).toBe(0);
    await until('b sees a left', 10_000, async () => (await membersOf(b)).members.find((m) => m.name === 'a')?.state === 'left');
  }, 120_000);

  it('-rpc-auth: refused without the token (and with a wrong one), served with it (flag or SERF_RPC_AUTH)', async () => {
    const a = await swimAgent('a', { extra: ['--serf-rpc-auth', 'correct-horse'] });
    const rpc = `-rpc-addr=${a.serfRpc}`;
    const none = await serf(['members', rpc]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('Error retrieving members: Authentication required\n');
    const wrong = await serf(['members', rpc, '-rpc-auth=nope']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('Error connecting to Serf agent: Invalid authentication token\n');
    expect(rows((await serf(['members', rpc, '-rpc-auth=correct-horse'])).stdout).map((r) => r[0])).toEqual(['a']);
    expect(rows((await serf(['members', rpc], { SERF_RPC_AUTH: 'correct-horse' })).stdout).map((r) => r[0])).toEqual(['a']);
    expect(await serf(['leave', rpc, '-rpc-auth=correct-horse'])).toMatchObject({ code: 0, stdout: 'Graceful leave complete\n' });
  }, 60_000);

  it('keys: -list, -install, -use, -remove across two encrypted agents; unencrypted: every member fails as in Serf', async () => {
    const key = newSerfKey();
    const a = await swimAgent('a', { extra: ['--encrypt', key] });
    await swimAgent('b', { join: a, extra: ['--encrypt', key] });
    const rpc = `-rpc-addr=${a.serfRpc}`;
    await listed(a.serfRpc, 2);
    const list = await serf(['keys', rpc, '-list']);
    expect(list).toMatchObject({ code: 0, stdout: `==> Asking all members for installed keys...\n==> Keys gathered, listing cluster keys...\n\n${key}  [2/2]\n` });
    const second = newSerfKey();
    expect(await serf(['keys', rpc, '-install', second])).toMatchObject({ code: 0, stdout: '==> Installing key on all members...\n==> Successfully installed key!\n' });
    const both = (await serf(['keys', rpc, '-list'])).stdout;
    expect(both).toContain(`${key}  [2/2]`);
    expect(both).toContain(`${second}  [2/2]`);
    expect((await serf(['keys', rpc, '-use', second])).code).toBe(0);
    expect((await serf(['keys', rpc, '-remove', key])).code).toBe(0);
    expect((await serf(['keys', rpc, '-list'])).stdout).not.toContain(key);
    const notBase64 = await serf(['keys', rpc, '-install', '!!!']);
    expect(notBase64).toMatchObject({ code: 1, stdout: '==> Installing key on all members...\n\nError installing key: illegal base64 data at input byte 0\n' });

    const plain = await swimAgent('p');
    const unencrypted = await serf(['keys', `-rpc-addr=${plain.serfRpc}`, '-list']);
    expect(unencrypted.code).toBe(1);
    expect(unencrypted.stdout).toContain('failed:  p  Keyring is empty (encryption not enabled)');
    expect(unencrypted.stdout).toContain('Failed to gather member keys: 1/1 nodes reported failure');
  }, 90_000);

  it('force-leave: a killed agent goes from failed to left', async () => {
    const a = await swimAgent('a');
    const b = await swimAgent('b', { join: a });
    await listed(a.serfRpc, 2);
    b.child.kill('SIGKILL');
    await until('a lists b failed', 30_000, async () => rows((await serf(['members', `-rpc-addr=${a.serfRpc}`, '-name', 'b'])).stdout)[0]?.[2] === 'failed');
    expect(await serf(['force-leave', `-rpc-addr=${a.serfRpc}`, 'b'])).toMatchObject({ code: 0, stdout: '' });
    expect(rows((await serf(['members', `-rpc-addr=${a.serfRpc}`, '-name', 'b'])).stdout)[0]?.[2]).toBe('left');
    // -prune erases it at once.
    expect((await serf(['force-leave', `-rpc-addr=${a.serfRpc}`, '-prune', 'b'])).code).toBe(0);
    expect(rows((await serf(['members', `-rpc-addr=${a.serfRpc}`, '-name', 'b'])).stdout)).toEqual([]);
  }, 60_000);

  it('query: acks and a response given through `stream` + `respond` on another agent\'s RPC', async () => {
    const a = await swimAgent('a');
    const b = await swimAgent('b', { join: a });
    await listed(a.serfRpc, 2);
    const responder = await respondOver(b.serfRpc, 'greet', 'hello-from-b');
    const query = await serf(['query', `-rpc-addr=${a.serfRpc}`, '-timeout=2s', 'greet', 'ping']);
    await responder.close();
    expect(query.code).toBe(0);
    expect(query.stdout).toContain("Query 'greet' dispatched");
    expect(query.stdout).toContain("Ack from 'b'");
    expect(query.stdout).toContain("Response from 'b': hello-from-b");
    expect(query.stdout).toMatch(/Total Acks: 2\nTotal Responses: 1\n$/);
  }, 60_000);

  it('rtt: an estimate between two agents from their coordinates', async () => {
    const a = await swimAgent('a');
    await swimAgent('b', { join: a });
    await listed(a.serfRpc, 2);
    let rtt: CliResult | undefined;
    await until('serf rtt finds both coordinates', 20_000, async () => (rtt = await serf(['rtt', `-rpc-addr=${a.serfRpc}`, 'b'])).code === 0);
    expect(rtt!.stdout).toMatch(/^Estimated b <-> a rtt: \d+\.\d{3} ms/);
  }, 60_000);

  it('rtt to a node with no coordinate: Serf\'s message', async () => {
    const a = await swimAgent('a');
    expect(await serf(['rtt', `-rpc-addr=${a.serfRpc}`, 'nobody'])).toMatchObject({ code: 1, stdout: 'Could not find a coordinate for node "nobody"\n' });
  }, 30_000);

  it('a hostile client (a 4 GiB string header) is closed; the agent goes on serving', async () => {
    const a = await swimAgent('a');
    const [host, port] = [a.serfRpc.slice(0, a.serfRpc.lastIndexOf(':')), Number(a.serfRpc.slice(a.serfRpc.lastIndexOf(':') + 1))];
    const socket = connect(port, host);
    socket.on('error', () => {});
    socket.write(Buffer.from([0x82, 0xa7, ...Buffer.from('Command'), 0xdb, 0xff, 0xff, 0xff, 0xff]));
    await new Promise((resolve) => socket.once('close', resolve));
    await until('the agent logs the closed connection', 5_000, () => a.lines.some((line) => line.event === 'serf-rpc' && String(line['reason']).startsWith('a request larger than')));
    expect((await serf(['members', `-rpc-addr=${a.serfRpc}`])).code).toBe(0);
  }, 30_000);
});

describeSerf('the serf CLI against swim agent --wire memberlist --serf-rpc in a Serf cluster', () => {
  const cluster = new SerfAgents();
  afterEach(() => cluster.cleanup());

  it('lists what the Serf agent lists; user events go both ways; join; leave', async () => {
    const s1 = await cluster.start({ node: 'serf-1', tags: { role: 'serf' } });
    const m = await swimAgent('swim-1', { join: s1.address, extra: ['--wire', 'memberlist'], tags: { role: 'web' } });
    const rpc = `-rpc-addr=${m.serfRpc}`;
    await listed(m.serfRpc, 2);
    await listed(s1.rpcAddress, 2);
    const fromSwim = rows((await serf(['members', rpc])).stdout);
    const fromSerf = rows((await serf(['members', `-rpc-addr=${s1.rpcAddress}`])).stdout);
    expect(fromSwim).toEqual(fromSerf);
    expect(fromSwim).toEqual([
      ['serf-1', s1.address, 'alive', 'role=serf'],
      ['swim-1', m.address, 'alive', 'role=web'],
    ]);
    // -format=json: the same fields, the Serf (delegate) protocol versions included.
    const json = async (address: string) => JSON.parse((await serf(['members', `-rpc-addr=${address}`, '-format=json'])).stdout) as { members: Array<{ name: string }> };
    const byName = (list: { members: Array<{ name: string }> }) => [...list.members].sort((x, y) => x.name.localeCompare(y.name));
    expect(byName(await json(m.serfRpc))).toEqual(byName(await json(s1.rpcAddress)));

    expect((await serf(['event', rpc, 'from-swim', 'p'])).code).toBe(0);
    await cluster.waitFor(() => cluster.logTail(s1, 200).includes('Received event: user-event: from-swim'), { timeoutMs: 15_000, describe: 'serf-1 to receive the event' });
    expect((await serf(['event', `-rpc-addr=${s1.rpcAddress}`, 'from-serf', 'q'])).code).toBe(0);
    await until('swim-1 receives the event', 15_000, () => m.lines.some((line) => line.event === 'user-event' && line['name'] === 'from-serf'));

    const s2 = await cluster.start({ node: 'serf-2' });
    expect(await serf(['join', rpc, s2.address])).toMatchObject({ code: 0, stdout: 'Successfully joined cluster by contacting 1 nodes.\n' });
    await listed(s2.rpcAddress, 3);

    expect(await serf(['leave', rpc])).toMatchObject({ code: 0, stdout: 'Graceful leave complete\n' });
    expect(await m.exited).toBe(0);
    await cluster.waitFor(async () => (await cluster.statusOf(s1, 'swim-1')) === 'left', { timeoutMs: 30_000, describe: 'serf-1 to list swim-1 left' });
  }, 120_000);
});

describeSerf('the serf CLI against swim agent --wire memberlist --serf-rpc: keys and queries with Serf agents', () => {
  const cluster = new SerfAgents();
  afterEach(() => cluster.cleanup());

  it('keys -list and -install through the swim agent cover the Serf agents (Serf\'s key queries)', async () => {
    const key = newSerfKey();
    const s1 = await cluster.start({ node: 'serf-1', encrypt: key });
    const m = await swimAgent('swim-1', { join: s1.address, extra: ['--wire', 'memberlist', '--encrypt', key] });
    const rpc = `-rpc-addr=${m.serfRpc}`;
    await listed(m.serfRpc, 2);
    expect(await serf(['keys', rpc, '-list'])).toMatchObject({ code: 0, stdout: `==> Asking all members for installed keys...\n==> Keys gathered, listing cluster keys...\n\n${key}  [2/2]\n` });
    const second = newSerfKey();
    expect(await serf(['keys', rpc, '-install', second])).toMatchObject({ code: 0, stdout: '==> Installing key on all members...\n==> Successfully installed key!\n' });
    // The Serf agent's own view agrees.
    const fromSerf = await serf(['keys', `-rpc-addr=${s1.rpcAddress}`, '-list']);
    expect(fromSerf.stdout).toContain(`${second}  [2/2]`);
    expect(fromSerf.stdout).toContain(`${key}  [2/2]`);
  }, 90_000);

  it('force-leave through the swim agent: Serf agents list the killed Serf agent left', async () => {
    const [s1, s2] = await cluster.startMany(2, (i) => ({ node: `serf-${i + 1}` }));
    await cluster.join(s2!, s1!);
    const m = await swimAgent('swim-1', { join: s1!.address, extra: ['--wire', 'memberlist'] });
    await listed(m.serfRpc, 3);
    await cluster.kill9(s2!);
    await until('swim-1 lists serf-2 failed', 60_000, async () => rows((await serf(['members', `-rpc-addr=${m.serfRpc}`, '-name', 'serf-2'])).stdout)[0]?.[2] === 'failed');
    expect((await serf(['force-leave', `-rpc-addr=${m.serfRpc}`, 'serf-2'])).code).toBe(0);
    await cluster.waitFor(async () => (await cluster.statusOf(s1!, 'serf-2')) === 'left', { timeoutMs: 15_000, describe: 'serf-1 to list serf-2 left' });
  }, 120_000);

  it('rtt between a Serf agent and a swim agent, asked of either', async () => {
    const s1 = await cluster.start({ node: 'serf-1' });
    const m = await swimAgent('swim-1', { join: s1.address, extra: ['--wire', 'memberlist'] });
    await listed(m.serfRpc, 2);
    let fromSwim: CliResult | undefined;
    let fromSerf: CliResult | undefined;
    await until('both sides estimate the rtt', 60_000, async () => {
      fromSwim = await serf(['rtt', `-rpc-addr=${m.serfRpc}`, 'serf-1']);
      fromSerf = await serf(['rtt', `-rpc-addr=${s1.rpcAddress}`, 'swim-1']);
      return fromSwim.code === 0 && fromSerf.code === 0;
    });
    expect(fromSwim!.stdout).toMatch(/^Estimated serf-1 <-> swim-1 rtt: \d+\.\d{3} ms/);
    expect(fromSerf!.stdout).toMatch(/^Estimated swim-1 <-> serf-1 rtt: \d+\.\d{3} ms/);
  }, 90_000);

  it('query through the swim agent: the Serf agent\'s handler answers; a query from Serf reaches a swim RPC responder', async () => {
    const s1 = await cluster.start({ node: 'serf-1', args: ['-event-handler', 'query:greet=echo hello-from-serf'] });
    const m = await swimAgent('swim-1', { join: s1.address, extra: ['--wire', 'memberlist'] });
    await listed(m.serfRpc, 2);
    const query = await serf(['query', `-rpc-addr=${m.serfRpc}`, 'greet']);
    expect(query.code).toBe(0);
    expect(query.stdout).toContain("Ack from 'serf-1'");
    expect(query.stdout).toContain("Response from 'serf-1': hello-from-serf");
    const responder = await respondOver(m.serfRpc, 'hi', 'hello-from-swim');
    const back = await serf(['query', `-rpc-addr=${s1.rpcAddress}`, 'hi']);
    await responder.close();
    expect(back.stdout).toContain("Response from 'swim-1': hello-from-swim");
  }, 90_000);
});

/**
 * A Serf RPC client that answers every `name` query with `payload` (stream + respond), as an
 * application on a Serf agent would. `close()` ends the connection, waits for the reading loop
 * and throws what the loop met before then (a failed respond, a timeout).
 */
async function respondOver(address: string, name: string, payload: string): Promise<{ close(): Promise<void> }> {
  const { rawClient } = await import('./serf-rpc-client.js');
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const client = await rawClient({ host, port });
  await client.call('handshake', 1, { Version: 1 });
  await client.call('stream', 2, { Type: `query:${name}` });
  let seq = 3;
  const answer = async (): Promise<never> => {
    for (;;) {
      const header = (await client.next(60_000)) as { Seq: number; Error: string };
      // The reply to a `respond` is a header alone; a stream record follows only a Seq 2 header.
      if (header.Seq !== 2) {
        if (header.Error !== '') throw new Error(`respond (seq ${header.Seq}) failed: ${header.Error}`);
        continue;
      }
      const record = (await client.next()) as { ID?: number };
      if (record.ID !== undefined) client.write({ Command: 'respond', Seq: seq++ }, { ID: record.ID, Payload: new Uint8Array(Buffer.from(payload)) });
    }
  };
  let closing = false;
  // Settled at once (never left rejected): the loop ends only by an error, "connection closed" once we close.
  const failure = answer().then(undefined, (error: unknown) => (closing ? undefined : error));
  return {
    async close() {
      closing = true;
      client.socket.destroy();
      const error = await failure;
      if (error !== undefined) throw error;
    },
  };
}
