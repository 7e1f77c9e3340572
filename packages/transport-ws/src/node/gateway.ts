import { isIP } from 'node:net';
import type { SecureTransportCounters } from '@swim/encryption';
import type { WsGatewayCounters } from './gateway-counters.js';
import { resolveGatewayOptions, type WsGatewayOptions } from './gateway-options.js';
import { WsGatewayServer, type SessionInfo } from './gateway-server.js';

/** A running gateway; create it with {@link createWsGateway}. */
export interface WsGateway {
  /** `ws://host:port/path`, or `wss://` with the `tls` option. */
  readonly url: string;
  /** The TCP port the gateway listens on (the one the OS chose when the `port` option was 0). */
  readonly port: number;
  /** Live counters of connections, sessions, relayed traffic and what was refused or dropped. */
  readonly counters: WsGatewayCounters;
  /**
   * Names with a relay (connected or within their reconnect grace): relay address, whether
   * connected and joined, and the bytes `ws` has queued for the connection.
   */
  sessions(): SessionInfo[];
  /**
   * What the relays' encryption did (see @swim/encryption's SecureTransportCounters), summed over
   * every relay this gateway opened; undefined without the `encryption` option.
   */
  encryptionCounters(): SecureTransportCounters | undefined;
  /** Close every connection (1001) and relay; idempotent. */
  close(): Promise<void>;
  /**
   * Stop abruptly, as a crashed gateway process: WebSockets destroyed without a close frame
   * (clients see 1006 and reconnect, to another gateway of their list), relays closed without a
   * word, the port freed. For demos and tests of failover; idempotent, and close() after it
   * resolves when it does.
   */
  abort(): Promise<void>;
}

/** Start a gateway: a WebSocket server that gives each browser member a relay socket in the cluster. */
export async function createWsGateway(options: WsGatewayOptions = {}): Promise<WsGateway> {
  const settings = resolveGatewayOptions(options);
  const server = await WsGatewayServer.listen(settings);
  const urlHost = isIP(settings.host) === 6 ? `[${settings.host}]` : settings.host;
  return {
    url: `${settings.tls === undefined ? 'ws' : 'wss'}://${urlHost}:${server.port}${settings.path}`,
    port: server.port,
    counters: server.counters,
    sessions: () => server.sessions(),
    encryptionCounters: () => server.encryptionCounters(),
    close: () => server.close(),
    abort: () => server.abort(),
  };
}
