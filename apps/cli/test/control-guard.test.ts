/** The control endpoint's request checks, one by one (control-endpoint.test.ts runs them on real agents). */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkContentType, checkHeaders, controlPolicy, hostProblem, readBody } from '../src/control/guard.js';
import { joinSeeds } from '../src/control/routes/join.js';
import { isLoopbackIp } from '../src/control/loopback.js';

const TOKEN = 'abcdefghijklmnop-0123';

describe('loopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.1.2', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['localhost', false],
    ['127.0.0.1.evil.example', false],
  ])('%s → %s', (host, loopback) => expect(isLoopbackIp(host)).toBe(loopback));
});

describe('Host header', () => {
  it.each([
    ['127.0.0.1:7947', undefined],
    ['localhost:7947', undefined],
    ['LOCALHOST:7947', undefined],
    ['[::1]:7947', undefined],
    ['127.9.9.9:7947', undefined],
    [undefined, 'missing Host header'],
    ['evil.example', 'not this loopback endpoint'],
    ['evil.example:7947', 'not this loopback endpoint'],
    ['localhost.evil.example:7947', 'not this loopback endpoint'],
    ['127.0.0.1:7948', 'not this loopback endpoint'],
    ['127.0.0.1', 'not this loopback endpoint'],
    ['[::1]', 'not this loopback endpoint'],
    ['[::1]x', 'not this loopback endpoint'],
    ['127.0.0.1:', 'not this loopback endpoint'],
    ['10.0.0.1:7947', 'not this loopback endpoint'],
  ])('%s → %s', (host, problem) => {
    const found = hostProblem(host, 7947);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('port 80 may be left out', () => {
    expect(hostProblem('localhost', 80)).toBeUndefined();
  });
});

describe('checkHeaders', () => {
  const loopback = controlPolicy({ bindHost: '127.0.0.1', port: 7947, token: undefined });
  const guarded = controlPolicy({ bindHost: '127.0.0.1', port: 7947, token: TOKEN });
  const open = controlPolicy({ bindHost: '0.0.0.0', port: 7947, token: TOKEN });
  const host = '127.0.0.1:7947';

  it('refuses web pages, foreign hosts and a missing or wrong token', () => {
    expect(checkHeaders({ host }, loopback)).toBeUndefined();
    expect(checkHeaders({ host, origin: 'http://evil.example' }, loopback)?.status).toBe(403);
    expect(checkHeaders({ host, origin: 'null' }, loopback)?.status).toBe(403);
    expect(checkHeaders({ host, 'sec-fetch-site': 'cross-site' }, loopback)?.status).toBe(403);
    expect(checkHeaders({ host, 'sec-fetch-site': 'none' }, loopback)).toBeUndefined();
    expect(checkHeaders({ host: 'evil.example:7947' }, loopback)?.status).toBe(403);
    expect(checkHeaders({ host }, guarded)).toMatchObject({ status: 401, error: 'this agent requires a token: --rpc-token or SWIM_RPC_TOKEN' });
    expect(checkHeaders({ host, authorization: `Bearer ${TOKEN}x` }, guarded)).toMatchObject({ status: 401, error: 'wrong token' });
    expect(checkHeaders({ host, authorization: `Basic ${TOKEN}` }, guarded)?.status).toBe(401);
    expect(checkHeaders({ host, authorization: TOKEN }, guarded)?.status).toBe(401);
    expect(checkHeaders({ host, authorization: `Bearer ${TOKEN}` }, guarded)).toBeUndefined();
    expect(checkHeaders({ host, authorization: `bearer  ${TOKEN}` }, guarded)).toBeUndefined();
    // A token on loopback does not open other Hosts; beyond loopback it does.
    expect(checkHeaders({ host: 'evil.example:7947', authorization: `Bearer ${TOKEN}` }, guarded)?.status).toBe(403);
    expect(checkHeaders({ host: 'swim.example:7947', authorization: `Bearer ${TOKEN}` }, open)).toBeUndefined();
    expect(checkHeaders({ host: 'swim.example:7947' }, open)?.status).toBe(401);
    expect(checkHeaders({ host: 'swim.example:7947', origin: 'http://swim.example', authorization: `Bearer ${TOKEN}` }, open)?.status).toBe(403);
  });

  it('a policy beyond loopback without a token cannot be made', () => {
    expect(() => controlPolicy({ bindHost: '0.0.0.0', port: 7947, token: undefined })).toThrow(RangeError);
  });
});

describe('checkContentType', () => {
  it.each([
    ['application/json', undefined],
    ['application/json; charset=utf-8', undefined],
    ['Application/JSON', undefined],
    ['text/plain', 415],
    ['application/x-www-form-urlencoded', 415],
    ['multipart/form-data; boundary=x', 415],
    [undefined, 415],
  ])('%s → %s', (type, status) => {
    expect(checkContentType(type === undefined ? {} : { 'content-type': type })?.status).toBe(status);
  });
});

describe('readBody', () => {
  const stream = (headers: Record<string, string> = {}) => Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;

  it('reads a body within the limits', async () => {
    const req = stream();
    const read = readBody(req);
    req.end('{"seeds":[]}');
    expect(await read).toEqual({ text: '{"seeds":[]}' });
  });

  it('refuses a declared or streamed body over the cap, and one that does not arrive in time', async () => {
    expect(await readBody(stream({ 'content-length': String(65 * 1024) }))).toMatchObject({ status: 413 });
    const chunked = stream();
    const read = readBody(chunked);
    for (let i = 0; i < 70; i++) chunked.write(Buffer.alloc(1024));
    expect(await read).toMatchObject({ status: 413, error: 'request body larger than 65536 bytes' });
    const slow = stream();
    slow.write('{"seeds":');
    expect(await readBody(slow, { maxBytes: 1024, timeoutMs: 50 })).toMatchObject({ status: 408 });
  });
});

describe('joinSeeds', () => {
  it.each([
    [{ seeds: ['10.0.0.1:7946', 'seed.example:7946', '[::1]:7946'] }, ['10.0.0.1:7946', 'seed.example:7946', '[::1]:7946']],
    [undefined, { error: 'expected {"seeds": ["HOST:PORT", ...]}' }],
    [{ seeds: [] }, { error: 'expected {"seeds": ["HOST:PORT", ...]}' }],
    [{ seeds: '10.0.0.1:7946' }, { error: 'expected {"seeds": ["HOST:PORT", ...]}' }],
    [{ seeds: Array.from({ length: 65 }, () => '10.0.0.1:7946') }, { error: 'at most 64 seeds per join, got 65' }],
    [{ seeds: ['x'.repeat(301)] }, { error: 'seed 0 is 301 characters, more than 300' }],
    [{ seeds: ['10.0.0.1:7946', null, '10.0.0.1:0'] }, { error: "seed 1 is not a string; seed '10.0.0.1:0': port 0 is out of range (1-65535)" }],
  ])('%j', (body, expected) => expect(joinSeeds(body)).toEqual(expected));
});
