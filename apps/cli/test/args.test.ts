import { presets } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { decodeTags } from '@swim/adapter-memberlist';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { parseArgs, USAGE } from '../src/commands/parse.js';
import { META_MAX_BYTES, parseTags } from '../src/flags/tags.js';
import { UsageError } from '../src/flags/usage-error.js';

const agent = (...extra: string[]) => ['agent', '--name', 'n1', '--bind', '127.0.0.1:7946', ...extra];
/** A 32-byte key, base64 (as `swim keygen` prints). */
const KEY = '2Y9E1lSUT8sZgkcxwjZl5Nw1y9SsCJMqxj0wIr2lyv8=';

describe('parseArgs: errors', () => {
  it.each([
    [[], 'missing command'],
    [['frobnicate'], "unknown command 'frobnicate' (expected one of agent, members, monitor, query, tags, join, leave, force-leave, stats, keys, keygen, rtt)"],
    [['agent', '--bind', '127.0.0.1:7946'], 'missing --name'],
    [['agent', '--name', 'n1'], 'missing --bind'],
    [['agent', '--name'], '--name needs a value'],
    [agent('--nmae', 'x'), "unknown flag '--nmae' for swim agent"],
    [agent('-v'), "unknown flag '-v' for swim agent"],
    [agent('extra'), "unexpected argument 'extra' for swim agent"],
    [['agent', '--name', 'n1', '--bind', '127.0.0.1'], "--bind '127.0.0.1': expected HOST:PORT"],
    [['agent', '--name', 'n1', '--bind', '127.0.0.1:x'], "--bind '127.0.0.1:x': port 'x' is not a number"],
    [['agent', '--name', 'n1', '--bind', '127.0.0.1:70000'], "--bind '127.0.0.1:70000': port 70000 is out of range (0-65535)"],
    [['agent', '--name', 'n1', '--bind', 'localhost:7946'], "--bind 'localhost:7946': 'localhost' is not an IP address: bind needs an IP (127.0.0.1, ::1, 0.0.0.0 or ::); host names are for --join, --retry-join and swim join, which resolve them"],
    [['agent', '--name', 'n1', '--bind', '::1:7946'], "--bind '::1:7946': an IPv6 address needs brackets: [IPv6]:PORT"],
    [['agent', '--name', 'n1', '--bind', '0.0.0.0:7946'], '--advertise is required when binding the wildcard address 0.0.0.0'],
    [['agent', '--name', 'n1', '--bind', '127.0.0.1:1', '--name', 'n2'], '--name given twice'],
    [agent('--join', '10.0.0.1'), "--join '10.0.0.1': expected HOST:PORT"],
    [agent('--join', '10.0.0.1:0'), "--join '10.0.0.1:0': port 0 is out of range (1-65535)"],
    [agent('--profile', 'fast'), "--profile 'fast': expected one of lan, wan, local, memberlist"],
    [agent('--tag', 'role'), "--tag 'role': expected key=value"],
    [agent('--tag', '=x'), "--tag '=x': expected key=value"],
    [agent('--tag', 'a=1', '--tag', 'a=2'), "--tag key 'a' given twice"],
    // 0xff, map header, fixstr "big" (4), str16 header (3), 600 bytes: 609.
    [agent('--tag', `big=${'x'.repeat(600)}`), "--tag: the tags are 609 bytes encoded, more than 512 (memberlist's limit on node metadata)"],
    [agent('--rejoin-after-leave'), "--rejoin-after-leave needs --snapshot FILE: the members to rejoin are the snapshot's"],
    [agent('--snapshot'), '--snapshot needs a value'],
    [agent('--rejoin-after-leave=yes', '--snapshot', 'f'), '--rejoin-after-leave takes no value'],
    [agent('--meta', 'role=web'), "unknown flag '--meta' for swim agent: metadata is --tag key=value now (Serf tags)"],
    [agent('--config', 'probeIntervalMs'), "--config 'probeIntervalMs': expected key=value"],
    [agent('--config', 'probeIntervalMS=200'), `--config: unknown option "probeIntervalMS" (did you mean 'probeIntervalMs'?)`],
    [agent('--config', 'probeIntervalMs=-1'), /^--config: probeIntervalMs/],
    [agent('--transport', 'maxFrameBytes'), "--transport: 'maxFrameBytes': expected key=value"],
    [agent('--transport', 'maxFrameByte=1', '--transport', 'maxBurst=x'), /^--transport: unknown key 'maxFrameByte' \(one of maxFrameBytes, .*\); maxBurst must be a number, got 'x'$/],
    [agent('--transport', 'maxFrameBytes=1.5', '--transport=maxStreamConnectionsPerSource=1000'), /^--transport: maxFrameBytes must be an integer.*; maxStreamConnectionsPerSource \(1000\) must not exceed maxStreamConnections/],
    [agent('--rpc', '127.0.0.1'), "--rpc '127.0.0.1': expected HOST:PORT"],
    [agent('--log', 'yaml'), "--log 'yaml': expected text or json"],
    [agent('--leave-timeout', 'soon'), "--leave-timeout 'soon': expected milliseconds (0-600000)"],
    [['members', '--rpc', '127.0.0.1:0'], "--rpc '127.0.0.1:0': port 0 is out of range (1-65535)"],
    [['members', '--json=yes'], '--json takes no value'],
    [['members', '--name', 'x'], "unknown flag '--name' for swim members"],
    [['members', '--tag', 'role'], "--tag 'role': expected key=value"],
    [['members', '--tag', 'a=1', '--tag', 'a=2'], "--tag key 'a' given twice"],
    [['members', '--status', 'alive,gone'], "--status 'gone': expected alive, suspect, dead, left"],
    [['monitor', '--kind', 'join,died,leave'], "--kind: unknown kinds 'died', 'leave' (expected join, update, suspect, alive, dead, left, log)"],
    [['monitor', 'now'], "unexpected argument 'now' for swim monitor"],
    [['tags'], 'swim tags needs --set key=value or --delete key'],
    [['tags', '--set', 'role'], "--set 'role': expected key=value"],
    [['tags', '--set', 'role=web', '--delete', 'role'], "tag 'role' is both set and deleted"],
    [['tags', '--set', `big=${'x'.repeat(600)}`], "--set: the tags are 609 bytes encoded, more than 512 (memberlist's limit on node metadata)"],
    [['join'], 'swim join needs at least one seed HOST:PORT'],
    [['join', 'nowhere'], "seed 'nowhere': expected HOST:PORT"],
    [['leave', 'now'], "unexpected argument 'now' for swim leave"],
    // serf force-leave: exactly one node name.
    [['force-leave'], 'A node name must be specified to force leave.'],
    [['force-leave', 'n1', 'n2'], 'A node name must be specified to force leave.'],
    [['force-leave', '--prune=yes', 'n1'], '--prune takes no value'],
    [['force-leave', '-prune', 'n1'], "unknown flag '-p' for swim force-leave"],
    [agent('--rpc', '0.0.0.0:7947'), '--rpc 0.0.0.0 is not a loopback address: set --rpc-token (or SWIM_RPC_TOKEN) so that control requests must carry it'],
    [agent('--rpc', '[::]:7947'), '--rpc :: is not a loopback address: set --rpc-token (or SWIM_RPC_TOKEN) so that control requests must carry it'],
    [agent('--rpc', '10.0.0.1:7947'), /^--rpc 10\.0\.0\.1 is not a loopback address/],
    [agent('--rpc-token', 'short'), '--rpc-token: the token is 5 characters, fewer than 16 (try: openssl rand -hex 16)'],
    [agent('--rpc-token', 'with a space 0123456789'), '--rpc-token: the token must be printable ASCII without spaces'],
    [['members', '--rpc-token', 'x'.repeat(1025)], '--rpc-token: the token is 1025 characters, more than 1024'],
    [['join', ...Array.from({ length: 65 }, (_, i) => `10.0.0.${i}:7946`)], 'swim join takes at most 64 seeds, got 65'],
    [agent('--encrypt', 'not-base64!'), /^--encrypt: /],
    [agent('--encrypt', 'AAAA'), /^--encrypt: .*3 bytes/],
    [agent('--label', 'x'.repeat(256)), '--label is 256 bytes, more than 255'],
    [agent('--wire', 'serf'), "--wire 'serf': expected swim or memberlist"],
    [agent('--wire', 'memberlist', '--label', 'blue'), '--label cannot go with --wire memberlist: memberlist 0.2 (what Serf 0.9 runs) knows no labels and drops labelled packets'],
    [agent('--wire', 'memberlist', '--wire', 'swim'), '--wire given twice'],
    [agent('--verify-incoming', 'false'), '--verify-incoming needs --encrypt or --keyring-file'],
    [agent('--encrypt', KEY, '--verify-outgoing', 'no'), "--verify-outgoing 'no': expected true or false"],
    [['keys'], 'swim keys needs an action: list, install, use, remove'],
    [['keys', 'rotate'], "unknown action 'rotate' for swim keys (expected one of list, install, use, remove)"],
    [['keys', 'install'], 'swim keys install needs a KEY'],
    [['keys', 'list', KEY], `unexpected argument '${KEY}' for swim keys list`],
    [['keys', 'use', KEY, 'extra'], "unexpected argument 'extra' for swim keys use"],
    [['keys', 'remove', 'AAAA'], /^KEY: .*3 bytes/],
    [['keys', 'list', '--timeout', '0'], "--timeout '0': expected milliseconds (1-600000)"],
    [['keygen', 'now'], "unexpected argument 'now' for swim keygen"],
    [['keygen', '--rpc', '127.0.0.1:1'], "unknown flag '--rpc' for swim keygen"],
    [agent('--name'), '--name needs a value'],
    [['agent', '--name', '--bind', '127.0.0.1:7946'], '--name needs a value'],
    [agent('--log='), '--log needs a value'],
    [agent('--constructor', 'x'), "unknown flag '--constructor' for swim agent"],
    [agent('-vq'), "unknown flag '-v' for swim agent"],
    [agent('--config', 'probeIntervalMs=200', 'probeTimeoutMs=100'), "unexpected argument 'probeTimeoutMs=100' for swim agent: --config takes one value, repeat it (--config probeTimeoutMs=100)"],
    [agent('--join', '10.0.0.1:7946', '10.0.0.2:7946'), "unexpected argument '10.0.0.2:7946' for swim agent: --join takes one value, repeat it (--join 10.0.0.2:7946)"],
  ] as Array<[string[], string | RegExp]>)('%j → %s', (argv, message) => {
    let error: unknown;
    try {
      parseArgs(argv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    if (typeof message === 'string') expect((error as Error).message).toBe(message);
    else expect((error as Error).message).toMatch(message);
  });
});

describe('parseArgs: agent', () => {
  it('defaults', () => {
    const args = parseArgs(agent()) as AgentArgs;
    expect(args).toMatchObject({
      command: 'agent',
      name: 'n1',
      bind: { host: '127.0.0.1', port: 7946 },
      advertise: undefined,
      join: [],
      profile: 'lan',
      wire: 'swim',
      tags: {},
      rpc: { host: '127.0.0.1', port: 7947 },
      log: 'text',
      leaveTimeoutMs: 5000,
    });
    expect(args.config).toEqual(presets.lan());
  });

  it('every flag, both spellings', () => {
    const args = parseArgs([
      'agent',
      '--name=n2',
      '--bind',
      '[::1]:0',
      '--advertise',
      'node2.example:7000',
      '--join',
      '10.0.0.1:7946,10.0.0.2:7946',
      '--join=10.0.0.3:7946',
      '--profile',
      'memberlist',
      '--wire',
      'memberlist',
      '--tag',
      'role=web',
      '--tag=dc=eu=1',
      '--tag',
      'empty=',
      '--config',
      'probeIntervalMs=200',
      '--config',
      'probeTimeoutMs=100',
      '--config=adaptiveTimeoutCeilingMs=100',
      '--rpc',
      '127.0.0.1:0',
      '--log',
      'json',
      '--leave-timeout',
      '1000',
    ]) as AgentArgs;
    expect(args).toMatchObject({
      name: 'n2',
      bind: { host: '::1', port: 0 },
      advertise: { host: 'node2.example', port: 7000 },
      join: ['10.0.0.1:7946', '10.0.0.2:7946', '10.0.0.3:7946'],
      profile: 'memberlist',
      wire: 'memberlist',
      tags: { role: 'web', dc: 'eu=1', empty: '' },
      rpc: { host: '127.0.0.1', port: 0 },
      log: 'json',
      leaveTimeoutMs: 1000,
    });
    expect(args.config).toMatchObject({ probeIntervalMs: 200, probeTimeoutMs: 100, directRefutation: false, overdueGraceMs: 0 });
  });

  it('--snapshot FILE and --rejoin-after-leave (Serf\'s -snapshot and -rejoin)', () => {
    expect(parseArgs(agent())).toMatchObject({ snapshot: undefined, rejoinAfterLeave: false });
    expect(parseArgs(agent('--snapshot', '/var/lib/swim/snapshot.jsonl'))).toMatchObject({ snapshot: '/var/lib/swim/snapshot.jsonl', rejoinAfterLeave: false });
    expect(parseArgs(agent('--snapshot=s.jsonl', '--rejoin-after-leave'))).toMatchObject({ snapshot: 's.jsonl', rejoinAfterLeave: true });
  });

  it('--transport sets the UDP transport\'s bounds', () => {
    const args = parseArgs(agent('--transport', 'maxFrameBytes=1048576', '--transport', 'maxStreamConnections=64', '--transport', 'maxStreamConnectionsPerSource=8')) as AgentArgs;
    expect(args.transport).toEqual({ maxFrameBytes: 1_048_576, maxStreamConnections: 64, maxStreamConnectionsPerSource: 8 });
    expect((parseArgs(agent()) as AgentArgs).transport).toEqual({});
  });

  it('the memberlist profile still takes overrides of the fields it sets', () => {
    const args = parseArgs(agent('--profile', 'memberlist', '--config', 'directRefutation=true')) as AgentArgs;
    expect(args.config.directRefutation).toBe(true);
    expect(args.config.healthScaling).toBe('off');
  });

  it('--help anywhere asks for the command usage', () => {
    expect(parseArgs(['agent', '--bind', 'junk', '--help'])).toEqual({ command: 'help', topic: 'agent' });
    expect(parseArgs(['agent', '--nmae', 'x', '-h'])).toEqual({ command: 'help', topic: 'agent' });
    expect(parseArgs(['members', '--rpc', '--help'])).toEqual({ command: 'help', topic: 'members' });
    expect(parseArgs(['help', 'members'])).toEqual({ command: 'help', topic: 'members' });
  });
});

describe('parseArgs: clients', () => {
  it('members, stats, join, leave', () => {
    expect(parseArgs(['members'])).toEqual({ command: 'members', rpc: { host: '127.0.0.1', port: 7947 }, json: false, tags: {}, statuses: [] });
    expect(parseArgs(['stats', '--json', '--rpc', '127.0.0.1:9000'])).toEqual({ command: 'stats', rpc: { host: '127.0.0.1', port: 9000 }, json: true });
    expect(parseArgs(['join', '10.0.0.1:7946,10.0.0.2:7946', 'seed.example:7946'])).toMatchObject({
      seeds: ['10.0.0.1:7946', '10.0.0.2:7946', 'seed.example:7946'],
    });
    expect(parseArgs(['leave', '--rpc=[::1]:7947'])).toEqual({ command: 'leave', rpc: { host: '::1', port: 7947 } });
  });

  it('force-leave NAME [--prune]', () => {
    expect(parseArgs(['force-leave', 'n3'])).toEqual({ command: 'force-leave', rpc: { host: '127.0.0.1', port: 7947 }, rpcToken: undefined, name: 'n3', prune: false });
    expect(parseArgs(['force-leave', '--prune', 'n3', '--rpc', '127.0.0.1:9000'])).toMatchObject({ name: 'n3', prune: true, rpc: { port: 9000 } });
    expect(USAGE['force-leave']).toMatch(/^usage: swim force-leave /);
    expect(USAGE.main).toMatch(/force-leave/);
  });
});

describe('parseArgs: encryption', () => {
  it('is off by default; --encrypt, --keyring-file, --label and the verify switches', () => {
    expect((parseArgs(agent()) as AgentArgs).encryption).toEqual({ key: undefined, keyringFile: undefined, label: undefined, verifyIncoming: true, verifyOutgoing: true });
    const args = parseArgs(agent('--encrypt', KEY, '--keyring-file', '/tmp/k.json', '--label', 'prod', '--verify-incoming', 'false', '--verify-outgoing=false')) as AgentArgs;
    expect(args.encryption).toEqual({ key: KEY, keyringFile: '/tmp/k.json', label: 'prod', verifyIncoming: false, verifyOutgoing: false });
    // A label alone is allowed: clusters kept apart without encryption (memberlist Label).
    expect((parseArgs(agent('--label', 'blue')) as AgentArgs).encryption.label).toBe('blue');
  });

  it('keys and keygen', () => {
    expect(parseArgs(['keys', 'list'])).toEqual({ command: 'keys', rpc: { host: '127.0.0.1', port: 7947 }, rpcToken: undefined, action: 'list', key: undefined, json: false, timeoutMs: 5000 });
    expect(parseArgs(['keys', 'install', KEY, '--json', '--timeout', '800'])).toMatchObject({ action: 'install', key: KEY, json: true, timeoutMs: 800 });
    for (const action of ['use', 'remove']) expect(parseArgs(['keys', action, KEY])).toMatchObject({ action, key: KEY });
    expect(parseArgs(['keygen'])).toEqual({ command: 'keygen' });
  });
});

describe('parseArgs: control token', () => {
  const TOKEN = '0123456789abcdef0123';

  it('comes from --rpc-token, else SWIM_RPC_TOKEN (empty means unset); every command takes it', () => {
    expect(parseArgs(agent())).toMatchObject({ rpcToken: undefined });
    expect(parseArgs(agent('--rpc-token', TOKEN))).toMatchObject({ rpcToken: TOKEN });
    expect(parseArgs(agent(), { SWIM_RPC_TOKEN: TOKEN })).toMatchObject({ rpcToken: TOKEN });
    expect(parseArgs(agent(), { SWIM_RPC_TOKEN: '' })).toMatchObject({ rpcToken: undefined });
    expect(parseArgs(agent(`--rpc-token=${TOKEN}x`), { SWIM_RPC_TOKEN: TOKEN })).toMatchObject({ rpcToken: `${TOKEN}x` });
    for (const argv of [['members'], ['stats', '--json'], ['leave'], ['force-leave', 'n3'], ['join', '10.0.0.1:7946'], ['keys', 'list'], ['keys', 'install', KEY]]) {
      expect(parseArgs([...argv, '--rpc-token', TOKEN]), argv.join(' ')).toMatchObject({ rpcToken: TOKEN });
      expect(parseArgs(argv, { SWIM_RPC_TOKEN: TOKEN }), argv.join(' ')).toMatchObject({ rpcToken: TOKEN });
    }
  });

  it('a bad token from the environment is named as such', () => {
    expect(() => parseArgs(['members'], { SWIM_RPC_TOKEN: 'abc' })).toThrow('SWIM_RPC_TOKEN: the token is 3 characters, fewer than 16');
  });

  it('a non-loopback --rpc needs a token; loopback does not', () => {
    expect(parseArgs(agent('--rpc', '0.0.0.0:7947', '--rpc-token', TOKEN))).toMatchObject({ rpc: { host: '0.0.0.0', port: 7947 }, rpcToken: TOKEN });
    expect(parseArgs(agent('--rpc', '10.0.0.1:7947'), { SWIM_RPC_TOKEN: TOKEN })).toMatchObject({ rpcToken: TOKEN });
    expect(parseArgs(agent('--rpc', '127.0.0.5:7947'))).toMatchObject({ rpc: { host: '127.0.0.5', port: 7947 }, rpcToken: undefined });
    expect(parseArgs(agent('--rpc', '[::1]:7947'))).toMatchObject({ rpc: { host: '::1', port: 7947 } });
  });
});

describe('--wire', () => {
  it('memberlist goes with encryption and the UDP transport bounds; the help documents it', () => {
    const args = parseArgs(agent('--wire=memberlist', '--encrypt', KEY, '--transport', 'maxFrameBytes=1048576')) as AgentArgs;
    expect(args).toMatchObject({ wire: 'memberlist', encryption: { key: KEY }, transport: { maxFrameBytes: 1_048_576 } });
    expect(USAGE.agent).toMatch(/--wire swim\|memberlist +wire format: swim \(default\), or memberlist to speak memberlist's wire format/);
  });
});

describe('tags', () => {
  it('take the encoded size up to 512 bytes exactly (memberlist MetaMaxSize), counted as Serf encodes them', () => {
    // 0xff, fixmap, fixstr "k", str16 header: 7 bytes before the value.
    const fits = parseTags([`k=${'x'.repeat(META_MAX_BYTES - 7)}`]);
    expect(fits['k']).toHaveLength(505);
    expect(() => parseTags([`k=${'x'.repeat(META_MAX_BYTES - 6)}`])).toThrow('--tag: the tags are 513 bytes encoded, more than 512');
    // Multi-byte characters count as their UTF-8 bytes.
    expect(() => parseTags([`k=${'é'.repeat(253)}`])).toThrow('--tag: the tags are 513 bytes encoded');
  });

  it('a tag named __proto__ is an ordinary tag', () => {
    const tags = parseTags(['__proto__=x', 'role=web']);
    expect(Object.keys(tags)).toEqual(['__proto__', 'role']);
    expect(() => parseTags(['__proto__=x', '__proto__=y'])).toThrow("--tag key '__proto__' given twice");
  });

  it('parsed tags read back through decodeTags', () => {
    const args = parseArgs(agent('--tag', 'role=web', '--tag', 'dc=eu')) as AgentArgs;
    expect(args.tags).toEqual({ role: 'web', dc: 'eu' });
    expect(decodeTags(new Uint8Array([0xff, 0x80]))).toEqual({});
  });
});
