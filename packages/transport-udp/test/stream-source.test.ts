import type { TcpNetConnectOpts } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamResult, TransportHandlers } from '@swim/runtime';
import type { UdpTransport } from '../src/index.js';
import { freePort, transports } from './helpers.js';

/** The options of every outgoing stream's connect, recorded by a pass-through of node:net's. */
const dialled = vi.hoisted(() => [] as TcpNetConnectOpts[]);
vi.mock('node:net', async (importOriginal) => {
  const net = await importOriginal<typeof import('node:net')>();
  const connect = (options: TcpNetConnectOpts) => {
    dialled.push(options);
    return net.connect(options);
  };
  return { ...net, connect, default: { ...net, connect } };
});

const answer: TransportHandlers = { packet: () => {}, stream: (_from, _bytes, reply) => reply(new Uint8Array([1])) };

/** One stream from `from` to `to`, answered; the options its connect was given. */
async function dial(from: UdpTransport, to: string): Promise<TcpNetConnectOpts> {
  dialled.length = 0;
  const result = await new Promise<StreamResult>((resolve) => from.request(to, new Uint8Array([7]), { timeoutMs: 5_000, expectReply: true }, resolve));
  expect(result.ok, `stream ${from.address} -> ${to}`).toBe(true);
  expect(dialled).toHaveLength(1);
  return dialled[0]!;
}

describe('where an outgoing stream dials from', () => {
  const pool = transports('127.0.0.1');
  const other = transports('127.0.0.4');
  const wildcard = transports('0.0.0.0');
  afterEach(async () => {
    await Promise.all([pool.closeAll(), other.closeAll(), wildcard.closeAll()]);
  });

  it('binds its bind address towards a peer at another address, so the peer sees the address it knows', async () => {
    const a = await pool.open();
    const b = await other.open();
    b.listen(answer);
    a.listen(answer);
    expect((await dial(a, b.address)).localAddress).toBe('127.0.0.1');
  });

  it('does not bind towards a peer at its own address: the kernel picks that source anyway, and bind(addr, 0) costs a port search', async () => {
    const a = await pool.open();
    const b = await pool.open();
    a.listen(answer);
    b.listen(answer);
    expect((await dial(a, b.address)).localAddress).toBeUndefined();
  });

  it('does not bind when bound to the wildcard address', async () => {
    const port = await freePort('127.0.0.1');
    const a = await wildcard.open({ bind: { host: '0.0.0.0', port }, advertise: { host: '127.0.0.1', port } });
    const b = await pool.open();
    a.listen(answer);
    b.listen(answer);
    expect((await dial(a, b.address)).localAddress).toBeUndefined();
  });
});
