/**
 * Encrypted clusters of real `swim agent` processes on 127.0.0.1: agents with the key converge,
 * agents without it or with another are kept out, the key is rotated while the cluster runs
 * (`swim keys install|use|remove`) without anyone going suspect, and labels keep clusters apart.
 */
import { Keyring, secureTransport } from '@swim/encryption';
import { Member, type Transport, type TransportHandlers } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_CONFIG, killAll, membersOf, startAgent, stateOf, swim, until, type Agent } from './agents.js';

afterAll(killAll);

const K1 = 'HJ1Qt6J6yEtgNXo3eCrs0bvyFx6M3XyT+2gpcM2+JkM=';
const K2 = 'q7kxuOYZ2X8VcQ2n2gX0x1vl3mS4cL8u0m9l1nCk6qY=';
const K3 = 'ZGlmZmVyZW50IGtleSwgZGlmZmVyZW50IGNsdXN0ZXI=';

interface Stats {
  encryption?: { decryptFailures: number; labelMismatches: number; plaintextRefused: number; packetsDecrypted: number };
}
const statsOf = async (agent: Agent): Promise<Stats> => (await (await fetch(`http://${agent.rpc}/stats`)).json()) as Stats;
const aliveNames = async (agent: Agent) => (await membersOf(agent)).members.filter((m) => m.state === 'alive').map((m) => m.name).sort();
/** Log lines where `agent` saw one of `names` suspect, dead or leave. */
const accusations = (agent: Agent, names: readonly string[]) =>
  agent.lines.filter((l) => (l.event === 'suspect' || l.event === 'dead' || l.event === 'leave') && l.member !== undefined && names.includes(l.member.name));

/** The raw bytes a transport receives, before anything else sees them. */
function recording(inner: Transport, seen: Uint8Array[]): Transport {
  return {
    get address() {
      return inner.address;
    },
    maxPacketBytes: inner.maxPacketBytes,
    supportsStreams: inner.supportsStreams,
    listen: (handlers: TransportHandlers) =>
      inner.listen({
        packet: (from, bytes) => {
          seen.push(bytes.slice());
          handlers.packet(from, bytes);
        },
        stream: (from, bytes, reply) => {
          seen.push(bytes.slice());
          handlers.stream(from, bytes, reply);
        },
      }),
    sendPacket: (to, bytes) => inner.sendPacket(to, bytes),
    request: (to, bytes, options, done) => inner.request(to, bytes, options, done),
    close: () => inner.close(),
  };
}

const contains = (haystack: Uint8Array, needle: string) => Buffer.from(haystack).includes(Buffer.from(needle));

describe.concurrent('swim agent --encrypt', () => {
  it('keeps out agents without the key, rotates K1 -> K2 live with no suspicion, then admits K2 only', { timeout: 240_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swim-keys-'));
    const keyringFile = join(dir, 'alpha.json');
    const alpha = await startAgent('enc-alpha', { extra: ['--encrypt', K1, '--keyring-file', keyringFile] });
    const joinWithK1 = (name: string) => startAgent(name, { join: [alpha.address], extra: ['--encrypt', K1] });
    const [bravo, charlie] = await Promise.all([joinWithK1('enc-bravo'), joinWithK1('enc-charlie')]);
    const cluster = [alpha, bravo, charlie];
    const names = cluster.map((a) => a.name).sort();
    await until('the three K1 agents see each other alive', 60_000, async () => (await Promise.all(cluster.map(aliveNames))).every((v) => v.join() === names.join()));
    expect(JSON.parse(await readFile(keyringFile, 'utf8'))).toEqual([K1]);

    // An in-process member with K1 listens to what the agents really send it.
    const raw: Uint8Array[] = [];
    const spyKeyring = Keyring.from([K1]);
    const spy = new Member({
      name: 'enc-spy',
      transport: secureTransport(recording(await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), raw), { keyring: spyKeyring }),
      config: FAST_CONFIG,
    });
    await spy.join([alpha.address]);

    // No key, and the wrong key: their joins fail and nobody lists them.
    const outsiders = await Promise.all([startAgent('enc-plain', { join: [alpha.address] }), startAgent('enc-wrong', { join: [alpha.address], extra: ['--encrypt', K3] })]);
    await until('both outsiders logged a failed join', 30_000, () => outsiders.every((o) => o.lines.some((l) => l.event === 'join-failed')));
    await until('alpha counted their traffic as decryption failures', 30_000, async () => ((await statsOf(alpha)).encryption?.decryptFailures ?? 0) > 0);
    for (const agent of cluster) {
      const listed = (await membersOf(agent)).members.map((m) => m.name);
      expect(listed).not.toContain('enc-plain');
      expect(listed).not.toContain('enc-wrong');
    }
    for (const outsider of outsiders) expect(await aliveNames(outsider)).toEqual([outsider.name]);
    await Promise.all(outsiders.map((o) => (o.child.kill('SIGKILL'), o.exited)));

    // What the agents sent the spy: ciphertext, with none of their names in it.
    await until('the spy saw all three agents alive', 30_000, () => cluster.every((a) => spy.member(a.name)?.state === 'alive'));
    expect(raw.length).toBeGreaterThan(0);
    const leaked = raw.filter((bytes) => cluster.some((a) => contains(bytes, a.name)));
    expect(leaked.length, `${leaked.length} of ${raw.length} captured datagrams/streams name a member in clear text`).toBe(0);
    const spyLeave = await spy.leave({ timeoutMs: 3_000 });
    await spy.close();
    // Left, or already forgotten (left members are reaped after gossipToTheDeadMs, 3 s here).
    let spyStates: (string | undefined)[] = [];
    await until('every agent saw the spy leave', 60_000, async () => {
      spyStates = (await Promise.all(cluster.map(membersOf))).map((v) => stateOf(v, 'enc-spy'));
      return spyStates.every((state) => state === 'left' || state === undefined);
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the agents hold the spy as ${spyStates.join(', ')}; the spy's leave: ${JSON.stringify(spyLeave)}`);
    });

    // Rotate while the cluster runs, through one agent's control endpoint.
    const mark = cluster.map((a) => a.lines.length);
    for (const [action, key] of [['install', K2], ['use', K2], ['remove', K1]] as const) {
      const result = await swim(['keys', action, key, '--rpc', alpha.rpc]);
      expect(result.code, `swim keys ${action}: ${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('3 of 3 members answered, 3 succeeded');
    }
    const listed = await swim(['keys', 'list', '--rpc', bravo.rpc, '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ members: 3, answered: 3, keys: { [K2]: 3 }, primaries: { [K2]: 3 } });
    expect(Object.keys(JSON.parse(listed.stdout).keys)).toEqual([K2]);
    // A malformed key is refused by the endpoint before any member is asked.
    const bad = await fetch(`http://${alpha.rpc}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'install', key: 'AAAA' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/key/);
    // The primary cannot be removed: every member refuses, and the command says so (exit 1).
    const refused = await swim(['keys', 'remove', K2, '--rpc', charlie.rpc]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('3 of 3 members answered, 0 succeeded');
    // The persisted keyring followed the rotation.
    await until('the keyring file holds K2 only', 10_000, async () => JSON.parse(await readFile(keyringFile, 'utf8')).join() === K2);
    // Nobody was suspected, declared dead or seen leaving during the rotation.
    cluster.forEach((agent, i) => expect(accusations({ ...agent, lines: agent.lines.slice(mark[i]) }, names), agent.name).toEqual([]));

    // After: K2 gets in, K1 does not.
    const [late2, late1] = await Promise.all([
      startAgent('enc-late-k2', { join: [bravo.address], extra: ['--encrypt', K2] }),
      startAgent('enc-late-k1', { join: [bravo.address], extra: ['--encrypt', K1] }),
    ]);
    await until('every K2 agent sees enc-late-k2 alive', 60_000, async () => (await Promise.all(cluster.map(membersOf))).every((v) => stateOf(v, 'enc-late-k2') === 'alive'));
    await until('enc-late-k1 logged a failed join', 30_000, () => late1.lines.some((l) => l.event === 'join-failed'));
    for (const agent of [...cluster, late2]) expect((await membersOf(agent)).members.map((m) => m.name)).not.toContain('enc-late-k1');

    // A restarted agent comes back with the rotated keyring from its file, not with --encrypt K1.
    alpha.child.kill('SIGKILL');
    await alpha.exited;
    const again = await startAgent('enc-alpha', { bind: alpha.address, join: [charlie.address], extra: ['--encrypt', K1, '--keyring-file', keyringFile] });
    await until('the restarted agent said it ignored --encrypt', 10_000, () => again.lines.some((l) => l.event === 'keyring' && String(l['note']).includes('--encrypt ignored')));
    await until('the restarted agent is alive again everywhere', 60_000, async () => (await Promise.all([bravo, charlie].map(membersOf))).every((v) => stateOf(v, 'enc-alpha') === 'alive'));
  });

  it('--label keeps two clusters on the same machine apart', { timeout: 120_000 }, async () => {
    const blue1 = await startAgent('blue-1', { extra: ['--label', 'blue'] });
    const blue2 = await startAgent('blue-2', { join: [blue1.address], extra: ['--label', 'blue'] });
    const green = await startAgent('green-1', { join: [blue1.address], extra: ['--label', 'green'] });
    const unlabelled = await startAgent('none-1', { join: [blue2.address] });
    await until('the blue agents see each other', 60_000, async () => (await Promise.all([blue1, blue2].map(aliveNames))).every((v) => v.join() === 'blue-1,blue-2'));
    await until('green and unlabelled logged a failed join', 30_000, () => [green, unlabelled].every((o) => o.lines.some((l) => l.event === 'join-failed')));
    await until('the blue agents counted label mismatches', 30_000, async () => (await Promise.all([blue1, blue2].map(statsOf))).every((s) => (s.encryption?.labelMismatches ?? 0) > 0));
    expect(await aliveNames(green)).toEqual(['green-1']);
    expect(await aliveNames(unlabelled)).toEqual(['none-1']);
    expect(await aliveNames(blue1)).toEqual(['blue-1', 'blue-2']);
    // A label without a key is not encryption: there are no keys to manage.
    const keys = await swim(['keys', 'list', '--rpc', blue1.rpc]);
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain('encryption is not enabled on this agent');
  });
});
