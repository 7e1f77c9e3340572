/**
 * Everything `pnpm demo` starts: the UDP members, the WebSocket gateway with its own member (the
 * browsers' seed), and the web server with the page and its control API.
 */
import { randomBytes } from 'node:crypto';
import { failureDetectionBoundMs, resolveConfig, type PresetName, type SwimConfig } from '@swim/core';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { createWsGateway, type GatewayTlsOptions, type WsGateway } from '@swim/transport-ws/node';
import type { PageConfig } from './api.js';
import { DemoCluster } from './cluster.js';
import { startWebServer, type WebServer } from './server.js';

export interface DemoOptions {
  /** UDP members at start (default 12). */
  readonly members?: number;
  /** Loopback host for everything (default 127.0.0.1). */
  readonly host?: string;
  /** Web server port (default 8080; 0 = any free port). The gateway takes any free port. */
  readonly port?: number;
  readonly preset?: PresetName;
  readonly config?: Partial<SwimConfig>;
  /** Serve the page over https and the gateway over wss with this certificate and key (PEM). */
  readonly tls?: GatewayTlsOptions;
}

export interface Demo {
  readonly url: string;
  readonly cluster: DemoCluster;
  readonly gateway: WsGateway;
  readonly gatewayMember: Member;
  readonly page: PageConfig;
  close(): Promise<void>;
}

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const host = options.host ?? '127.0.0.1';
  const preset = options.preset ?? 'lan';
  const config = options.config ?? {};
  const size = options.members ?? 12;

  const own = await createUdpTransport({ bind: { host, port: 0 } });
  const gatewayMember = new Member({ name: 'gateway', transport: own, preset, config });
  const token = randomBytes(12).toString('hex');
  // Errors the gateway contains before the cluster (and its event log) exists go to stderr.
  let reportGatewayError = (where: string, error: unknown) => console.error(`gateway: ${where}:`, error);
  const gateway = await createWsGateway({
    host,
    port: 0,
    path: '/swim',
    token,
    seed: gatewayMember.address,
    // Clients' accusations of the gateway's own member are kept from the rest of the cluster.
    seedName: gatewayMember.name,
    relayHost: host,
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    onError: (error, where) => reportGatewayError(where, error),
  });
  // The gateway's member and the browsers' relays side with the first half of a partition.
  const outsiders = () => [gatewayMember.address, ...gateway.sessions().map((session) => session.address)];
  const cluster = await DemoCluster.start({ size, host, preset, config, seeds: [gatewayMember.address], outsiders });
  reportGatewayError = (where, error) => cluster.reportError('gateway', where, error);
  gatewayMember.on('error', ({ error, where }) => cluster.reportError('gateway', where, error));

  const resolved = resolveConfig(config, preset);
  const page: PageConfig = {
    gatewayUrl: gateway.url,
    token,
    preset,
    config,
    detectionBoundMs: failureDetectionBoundMs(resolved, size + 2),
  };
  let web: WebServer;
  try {
    web = await startWebServer({ host, port: options.port ?? 8080, tls: options.tls, cluster, gateway, gatewayMember, page });
  } catch (error) {
    await Promise.all([cluster.close(), gateway.close(), gatewayMember.close()]);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    url: web.url,
    cluster,
    gateway,
    gatewayMember,
    page,
    close: () =>
      (closing ??= (async () => {
        await web.close();
        await gateway.close();
        await Promise.all([cluster.close(), gatewayMember.close()]);
      })()),
  };
}
