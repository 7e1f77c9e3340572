import { request } from 'node:https';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWsTransport, createWsGateway, WsConnectError, type WebSocketConstructor, type WsGateway } from '../src/node/index.js';
import { waitFor } from './helpers.js';
import { selfSigned, type SelfSigned } from './self-signed.js';

const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000 };

/** The `ws` WebSocket trusting `ca` (and nothing else) for wss://. */
function trusting(ca: string): WebSocketConstructor {
  class Trusting extends WebSocket {
    constructor(url: string) {
      super(url, { ca });
    }
  }
  return Trusting as unknown as WebSocketConstructor;
}

describe('a gateway serving wss:// with a self-signed certificate', () => {
  let tls: SelfSigned;
  let gateway: WsGateway;
  const members: Member[] = [];

  beforeAll(async () => {
    tls = await selfSigned();
  });

  afterAll(async () => {
    await Promise.all(members.map((m) => m.close()));
    await gateway?.close();
  });

  it('a ws client that trusts the certificate joins the cluster through it', async () => {
    const own = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    const seed = new Member({ name: 'gateway', transport: own, preset: 'local', config });
    members.push(seed);
    gateway = await createWsGateway({ tls: { cert: tls.cert, key: Buffer.from(tls.key) }, seed: seed.address, seedName: seed.name });
    expect(gateway.url).toBe(`wss://127.0.0.1:${gateway.port}/`);

    const transport = await connectWsTransport({ url: gateway.url, name: 'browser-1', WebSocket: trusting(tls.cert) });
    const browser = new Member({ name: 'browser-1', transport, preset: 'local', config });
    members.push(browser);
    await browser.join([transport.seed!]);
    const converged = () => seed.member('browser-1')?.state === 'alive' && browser.member('gateway')?.state === 'alive';
    expect(await waitFor(converged, 15_000)).toBe(true);
    expect(gateway.sessions().map((s) => s.name)).toEqual(['browser-1']);
    expect(gateway.counters.tlsHandshakeFailures).toBe(0);
  });

  it('a client that does not trust the certificate is refused at the TLS handshake, counted', async () => {
    const before = gateway.counters.tlsHandshakeFailures;
    const refused = connectWsTransport({ url: gateway.url, name: 'untrusting' });
    await expect(refused).rejects.toBeInstanceOf(WsConnectError);
    expect(await waitFor(() => gateway.counters.tlsHandshakeFailures > before, 5_000)).toBe(true);
    expect(gateway.sessions().map((s) => s.name)).not.toContain('untrusting');
  });

  it('a plain HTTPS request gets 426 Upgrade Required', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: gateway.port, path: '/', ca: tls.cert, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(426);
  });

  it('close() closes the HTTPS server too: the port takes no more connections', async () => {
    const { port } = gateway;
    await gateway.close();
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', ca: tls.cert, agent: false }, () => resolve(new Error('answered')));
      req.on('error', resolve);
      req.end();
    });
    expect(error.code).toBe('ECONNREFUSED');
  });
});

describe('the tls option is checked at construction', () => {
  it('lists every problem at once: unreadable certificate, a key that is not PEM, and the other options', async () => {
    const attempt = createWsGateway({ tls: { cert: 'not a certificate', key: 42 as unknown as string }, maxSessions: 0 });
    await expect(attempt).rejects.toThrow(RangeError);
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toContain('(3 problems)');
    expect(message).toContain('tls.cert must be a PEM certificate');
    expect(message).toContain('tls.key must be a PEM private key');
    expect(message).toContain('maxSessions must be a positive integer');
  });

  it('refuses a key that is not the certificate\'s, and a garbled PEM', async () => {
    const [a, b] = [await selfSigned(), await selfSigned()];
    await expect(createWsGateway({ tls: { cert: a.cert, key: b.key } })).rejects.toThrow("tls.key is not the private key of tls.cert's certificate");
    const garbled = a.cert.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!');
    const message = await createWsGateway({ tls: { cert: garbled, key: a.key.replace('PRIVATE KEY-----\n', 'PRIVATE KEY-----\nxx') } }).catch((e: Error) => e.message);
    expect(message).toContain('tls.cert is not a readable certificate');
    expect(message).toContain('tls.key is not a readable private key');
  });

  it('refuses a tls option that is not an object', async () => {
    await expect(createWsGateway({ tls: 'cert.pem' as never })).rejects.toThrow('tls must be an object { cert, key }');
  });
});
