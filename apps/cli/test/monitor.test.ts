/**
 * `swim monitor` against real agents: a join and a kill -9 streamed as they happen (text lines, and
 * JSON lines filtered by kind); monitors that never read are dropped once the agent holds
 * 256 KiB for them, while a monitor that reads keeps every line; at most 16 monitors at once; the
 * route is guarded like the others.
 */
import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_MONITOR_BUFFERED_BYTES, MAX_MONITORS } from '../src/control/routes/monitor.js';
import { killAll, spawnSwim, startAgent, swim, until, type Agent, type LogLine } from './agents.js';

afterAll(killAll);

interface MonitorStats {
  streaming: number;
  opened: number;
  dropped: number;
  refused: number;
  maxBufferedBytes: number;
}

async function statsOf(agent: Agent): Promise<{ monitor: MonitorStats }> {
  const res = await fetch(`http://${agent.rpc}/stats`);
  return (await res.json()) as { monitor: MonitorStats };
}

/** A monitor that sends its request and never reads a byte of the answer. */
function idleMonitor(agent: Agent): Promise<Socket> {
  const [host, port] = [agent.rpc.slice(0, agent.rpc.lastIndexOf(':')), Number(agent.rpc.slice(agent.rpc.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => {
      socket.write(`GET /monitor?format=json HTTP/1.1\r\nHost: ${agent.rpc}\r\n\r\n`);
      // No 'data' listener: Node stops reading once 16 KiB wait in the socket, the kernel holds the rest.
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** GET `path` with exactly these headers (node:http sets Origin and Sec-Fetch-Site as a browser would); status and body. */
function get(agent: Agent, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const url = new URL(`http://${agent.rpc}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: Number(url.port), path, headers, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to GET ${path} within 20 s`)));
    req.on('error', reject);
    req.end();
  });
}

describe.concurrent('swim monitor', () => {
  it('streams a join and a kill -9 as they happen, as text and as JSON lines of the kinds asked for', { timeout: 120_000 }, async () => {
    const a = await startAgent('mon-a');
    const text = spawnSwim(['monitor', '--rpc', a.rpc]);
    const json = spawnSwim(['monitor', '--rpc', a.rpc, '--json', '--kind', 'join,dead']);
    await until('both monitors stream', 30_000, async () => (await statsOf(a)).monitor.streaming === 2);

    const b = await startAgent('mon-b', { join: [a.address] });
    const joinText = () => text.lines.find((l) => / mon-a join mon-b \(127\.0\.0\.1:\d+, incarnation \d+\)$/.test(l.text));
    const jsonEvents = () => json.lines.map((l) => JSON.parse(l.text) as LogLine);
    await until('both monitors show the join', 30_000, () => joinText() !== undefined && jsonEvents().some((e) => e.event === 'join' && e.member?.name === 'mon-b'));
    // Streamed, not collected: the monitors are still running.
    expect([text.child.exitCode, json.child.exitCode]).toEqual([null, null]);

    const killedAt = Date.now();
    b.child.kill('SIGKILL');
    await until('both monitors show mon-b dead', 60_000, () =>
      text.lines.some((l) => / mon-a dead mon-b \(.*suspicion timed out\)$/.test(l.text)) && jsonEvents().some((e) => e.event === 'dead' && e.member?.name === 'mon-b'),
    );
    const suspected = text.lines.find((l) => / mon-a suspect mon-b /.test(l.text));
    expect(suspected, 'the suspicion came before the death').toBeDefined();
    expect(suspected!.at).toBeGreaterThanOrEqual(killedAt);

    // The JSON lines are the agent's own --log json lines, of the kinds asked for only.
    expect(jsonEvents().map((e) => `${e.event} ${e.member?.name}`)).toEqual(['join mon-b', 'dead mon-b']);
    for (const event of jsonEvents()) {
      expect(a.lines.find((l) => l.event === event.event && l.member?.name === 'mon-b')).toEqual(event);
    }
    // The text monitor also gets log lines (the kind `log`): the agent's leave and stop.
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    // The agent ends the streams as it stops: both monitors exit 0.
    expect(await text.exited).toBe(0);
    expect(await json.exited).toBe(0);
    expect(text.lines.map((l) => l.text).filter((l) => / mon-a (leaving|left) \(/.test(l))).toHaveLength(2);
    expect(text.stderr()).toBe('');
  });

  it('drops monitors that never read once 256 KiB wait for them; a reading monitor keeps every line', { timeout: 240_000 }, async () => {
    const a = await startAgent('flood');
    const reader = spawnSwim(['monitor', '--rpc', a.rpc, '--json', '--kind', 'log']);
    const idle = [await idleMonitor(a), await idleMonitor(a)];
    await until('three monitors stream', 30_000, async () => (await statsOf(a)).monitor.streaming === 3);

    // Log lines by the thousand: joins through 64 seeds that refuse at once, each failure one line.
    const seeds = Array.from({ length: 64 }, (_, i) => `127.0.1.${i + 1}:1`);
    const post = () => fetch(`http://${a.rpc}/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seeds }) });
    let posts = 0;
    await until('both idle monitors are dropped', 180_000, async () => {
      await Promise.all(Array.from({ length: 4 }, post));
      posts += 4;
      return (await statsOf(a)).monitor.dropped === 2;
    });
    const { monitor } = await statsOf(a);
    // What the agent held for any monitor (its response's and socket's buffers, which the memory of an
    // idle monitor is) never exceeded the bound; the kernel took the first ~4 MB (loopback buffers).
    expect(monitor.maxBufferedBytes).toBeGreaterThan(MAX_MONITOR_BUFFERED_BYTES / 2);
    expect(monitor.maxBufferedBytes).toBeLessThanOrEqual(MAX_MONITOR_BUFFERED_BYTES);
    expect(monitor.streaming, 'the reading monitor still streams').toBe(1);
    // The agent closed their connections: read what the kernel held, then the end comes.
    await Promise.all(idle.map((socket) => (socket.resume(), once(socket, 'close'))));
    // The drops are logged, and the reading monitor saw every failed seed the agent logged.
    await until('the drops are logged', 30_000, () => a.lines.filter((l) => l.event === 'monitor-dropped').length === 2);
    const failures = posts * seeds.length;
    await until('the reading monitor caught up', 60_000, () => reader.lines.filter((l) => (JSON.parse(l.text) as LogLine).event === 'join-failed').length === failures);
    expect(reader.child.exitCode).toBe(null);
    a.child.kill('SIGTERM');
    expect(await reader.exited).toBe(0);
  });

  it('serves at most 16 monitors at once, refuses browser-shaped requests and bad parameters', { timeout: 120_000 }, async () => {
    const a = await startAgent('cap');
    const held = await Promise.all(Array.from({ length: MAX_MONITORS }, () => idleMonitor(a)));
    await until(`${MAX_MONITORS} monitors stream`, 30_000, async () => (await statsOf(a)).monitor.streaming === MAX_MONITORS);
    const refused = await swim(['monitor', '--rpc', a.rpc]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`swim: ${MAX_MONITORS} monitors are streaming already, the most this agent serves at once\n`);
    expect((await statsOf(a)).monitor.refused).toBe(1);
    // One ends: the next is served.
    held.pop()!.destroy();
    await until('a slot is free', 30_000, async () => (await statsOf(a)).monitor.streaming === MAX_MONITORS - 1);
    const next = spawnSwim(['monitor', '--rpc', a.rpc]);
    await until('the next monitor streams', 30_000, async () => (await statsOf(a)).monitor.streaming === MAX_MONITORS);
    expect(next.child.exitCode).toBe(null);

    // A page cannot open one (Origin, cross-site fetch metadata), nor name kinds that do not exist.
    expect(await get(a, '/monitor', { origin: 'http://evil.example' })).toMatchObject({ status: 403 });
    expect(await get(a, '/monitor', { 'sec-fetch-site': 'cross-site' })).toMatchObject({ status: 403 });
    expect(await get(a, '/monitor', { host: `evil.example:${new URL(`http://${a.rpc}`).port}` })).toMatchObject({ status: 403 });
    expect(await get(a, '/monitor?kinds=join,died')).toEqual({
      status: 400,
      body: { error: "kinds: unknown kind 'died' (expected join, update, suspect, alive, dead, left, log)" },
    });
    expect(await get(a, '/monitor?follow=1')).toEqual({ status: 400, body: { error: "unknown parameter 'follow' (expected format, kinds)" } });
    expect((await statsOf(a)).monitor.streaming, 'none of those streams').toBe(MAX_MONITORS);
    for (const socket of held) socket.destroy();
    a.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  });

  it('needs the token when the agent has one', { timeout: 60_000 }, async () => {
    const token = 'monitor-token-0123456789';
    const a = await startAgent('guarded', { env: { SWIM_RPC_TOKEN: token } });
    const without = await swim(['monitor', '--rpc', a.rpc]);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('this agent requires a token');
    const withToken = spawnSwim(['monitor', '--rpc', a.rpc, '--kind', 'log'], { SWIM_RPC_TOKEN: token });
    await until('the monitor streams', 30_000, async () => {
      const res = await fetch(`http://${a.rpc}/stats`, { headers: { authorization: `Bearer ${token}` } });
      return ((await res.json()) as { monitor: MonitorStats }).monitor.streaming === 1;
    });
    a.child.kill('SIGTERM');
    expect(await withToken.exited).toBe(0);
    expect(withToken.lines.some((l) => / guarded leaving \(SIGTERM\)/.test(l.text))).toBe(true);
  });
});
