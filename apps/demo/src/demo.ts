/**
 * Everything `pnpm demo` starts: the UDP members, two WebSocket gateways each with its own member
 * (the browsers' seeds; a tab moves to the other when its gateway is killed), and the web server
 * with the page and its control API.
 */
import { randomBytes } from 'node:crypto';
import { failureDetectionBoundMs, resolveConfig, type PresetName, type SwimConfig } from '@swim/core';
import type { GatewayTlsOptions } from '@swim/transport-ws/node';
import type { PageConfig } from './api.js';
import { DemoCluster } from './cluster.js';
import { DemoGateway } from './gateways.js';
import { startWebServer, type WebServer } from './server.js';

/** The gateways' names, in the order the page lists them. */
export const GATEWAY_NAMES = ['gateway-a', 'gateway-b'] as const;

export interface DemoOptions {
  /** UDP members at start (default 12). */
  readonly members?: number;
  /** Loopback host for everything (default 127.0.0.1). */
  readonly host?: string;
  /** Web server port (default 8080; 0 = any free port). The gateways take any free port. */
  readonly port?: number;
  readonly preset?: PresetName;
  readonly config?: Partial<SwimConfig>;
  /** Serve the page over https and the gateways over wss with this certificate and key (PEM). */
  readonly tls?: GatewayTlsOptions;
}

export interface Demo {
  readonly url: string;
  readonly cluster: DemoCluster;
  /** The gateways, in the page's order (GATEWAY_NAMES). */
  readonly gateways: readonly DemoGateway[];
  readonly page: PageConfig;
  /** Kill a gateway as a crashed process (see gateways.ts), or start it again; false for no such gateway. */
  killGateway(name: string): Promise<boolean>;
  restartGateway(name: string): Promise<boolean>;
  close(): Promise<void>;
}

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const host = options.host ?? '127.0.0.1';
  const preset = options.preset ?? 'lan';
  const config = options.config ?? {};
  const size = options.members ?? 12;
  // One token for both gateways: each derives the member credential from it, so a tab can move.
  const token = randomBytes(12).toString('hex');

  // Errors the gateways contain before the cluster (and its event log) exists go to stderr.
  let reportGatewayError = (source: string, where: string, error: unknown) => console.error(`${source}: ${where}:`, error);
  const gateways: DemoGateway[] = [];
  try {
    for (const name of GATEWAY_NAMES) {
      gateways.push(await DemoGateway.start({ name, host, preset, config, token, tls: options.tls, onError: (where, error) => reportGatewayError(name, where, error) }));
    }
  } catch (error) {
    await Promise.all(gateways.map((g) => g.close()));
    throw error;
  }
  const running = () => gateways.filter((g) => g.state === 'running');
  // The gateways' members and the browsers' relays side with the first half of a partition.
  const outsiders = () => running().flatMap((g) => [g.address, ...g.sessions().map((session) => session.address)]);
  // The first demo member joins through both gateways' members: they learn of each other through it.
  const cluster = await DemoCluster.start({ size, host, preset, config, seeds: gateways.map((g) => g.address), outsiders });
  reportGatewayError = (source, where, error) => cluster.reportError(source, where, error);

  const resolved = resolveConfig(config, preset);
  const page: PageConfig = {
    gateways: gateways.map(({ name, url }) => ({ name, url })),
    token,
    preset,
    config,
    detectionBoundMs: failureDetectionBoundMs(resolved, size + gateways.length + 1),
  };

  const find = (name: string) => gateways.find((g) => g.name === name);
  const killGateway = async (name: string): Promise<boolean> => {
    const gateway = find(name);
    if (gateway === undefined) return false;
    if (gateway.state === 'killed') return true;
    const tabs = gateway.sessions().length;
    await gateway.kill();
    cluster.note(`${name} killed: its ${tabs} tab connection(s) dropped without a close frame, its relays and its member gone`, name);
    return true;
  };
  const restartGateway = async (name: string): Promise<boolean> => {
    const gateway = find(name);
    if (gateway === undefined) return false;
    if (gateway.state === 'running') return true;
    const seeds = [...cluster.runningAddresses(), ...running().map((g) => g.address)];
    await gateway.restart(seeds);
    cluster.note(`${name} restarted at ${gateway.url} (its member at ${gateway.address})`, name);
    return true;
  };

  let web: WebServer;
  try {
    web = await startWebServer({ host, port: options.port ?? 8080, tls: options.tls, cluster, gateways, page, killGateway, restartGateway });
  } catch (error) {
    await Promise.all([cluster.close(), ...gateways.map((g) => g.close())]);
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    url: web.url,
    cluster,
    gateways,
    page,
    killGateway,
    restartGateway,
    close: () =>
      (closing ??= (async () => {
        await web.close();
        await Promise.all(gateways.map((g) => g.close()));
        await cluster.close();
      })()),
  };
}
