/**
 * The demo's WebSocket gateways, each with its own UDP member (`gateway-a`, `gateway-b`): the
 * browsers' seeds and relays. The page lists them all, so a tab whose gateway dies moves to the
 * other one and stays the same member (transport-ws README, "Several gateways and failover").
 *
 * A kill is in-process: the demo's members, clocks and event log all live in this process and
 * read each member directly, so a gateway here keeps its view in the who-sees-whom matrix without
 * a second process to talk to. It dies as a crashed process would all the same:
 * `WsGateway.abort()` destroys every browser's WebSocket without a close frame and closes its
 * relays without a word, and its member stops without leaving (Member.close, memberlist Shutdown).
 * A restart binds the same WebSocket port (the page's list stays right) and the same UDP port (the
 * member refutes its death with a higher incarnation, as a restarted demo member does).
 */
import { resolveConfig, type PresetName, type SwimConfig } from '@swim/core';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { createWsGateway, type GatewayTlsOptions, type SessionInfo, type WsGateway } from '@swim/transport-ws/node';

export type GatewayProcessState = 'running' | 'killed';

export interface DemoGatewayOptions {
  readonly name: string;
  readonly host: string;
  readonly preset: PresetName;
  readonly config: Partial<SwimConfig>;
  /**
   * The join token, the same for every gateway: each gateway derives the member credential from
   * it, so a credential signed by one verifies at the other and a tab can move.
   */
  readonly token: string;
  readonly tls?: GatewayTlsOptions | undefined;
  /** Errors the gateway or its member contained. */
  readonly onError: (where: string, error: unknown) => void;
}

export class DemoGateway {
  readonly name: string;
  /** The gateway's URL; a restart listens on the same port, so it does not change. */
  readonly url: string;
  readonly #options: DemoGatewayOptions;
  #member: Member | undefined;
  #gateway: WsGateway | undefined;
  #udpPort: number;
  #state: GatewayProcessState = 'running';

  private constructor(options: DemoGatewayOptions, member: Member, gateway: WsGateway, udpPort: number) {
    this.#options = options;
    this.name = options.name;
    this.#member = member;
    this.#gateway = gateway;
    this.#udpPort = udpPort;
    this.url = gateway.url;
  }

  /** Start a gateway on a free port with its member (not joined yet: see join). */
  static async start(options: DemoGatewayOptions): Promise<DemoGateway> {
    const { member, gateway, udpPort } = await DemoGateway.#boot(options, 0, 0);
    return new DemoGateway(options, member, gateway, udpPort);
  }

  static async #boot(options: DemoGatewayOptions, udpPort: number, wsPort: number): Promise<{ member: Member; gateway: WsGateway; udpPort: number }> {
    const { name, host, preset, config, token, tls, onError } = options;
    const own = await createUdpTransport({ bind: { host, port: udpPort } });
    const member = new Member({ name, transport: own, preset, config });
    member.on('error', ({ error, where }) => onError(where, error));
    let gateway: WsGateway;
    try {
      gateway = await createWsGateway({
        host,
        port: wsPort,
        path: '/swim',
        token,
        seed: member.address,
        // Clients' accusations of the gateway's own member are kept from the rest of the cluster.
        seedName: name,
        relayHost: host,
        ...(tls === undefined ? {} : { tls }),
        onError: (error, where) => onError(where, error),
      });
    } catch (error) {
      await member.close();
      throw error;
    }
    return { member, gateway, udpPort: own.port };
  }

  get state(): GatewayProcessState {
    return this.#state;
  }

  /** Its member while running, undefined once killed. */
  get member(): Member | undefined {
    return this.#member;
  }

  /** Its member's address (kept while killed: the address it will come back at). */
  get address(): string {
    return `${this.#options.host}:${this.#udpPort}`;
  }

  /** The resolved config of its member (the cluster's). */
  get config(): SwimConfig {
    return this.#member?.config ?? resolveConfig(this.#options.config, this.#options.preset);
  }

  /** Browser sessions it holds now (none while killed). */
  sessions(): SessionInfo[] {
    return this.#gateway?.sessions() ?? [];
  }

  /** Join the cluster through `seeds` (in the background: a failure goes to onError). */
  join(seeds: readonly string[]): void {
    if (seeds.length === 0) return;
    this.#member?.join([...seeds]).catch((error: unknown) => this.#options.onError('join', error));
  }

  /** Die as a crashed process: browsers dropped without a close frame, relays and member gone without a word. */
  async kill(): Promise<void> {
    if (this.#state === 'killed') return;
    this.#state = 'killed';
    const [gateway, member] = [this.#gateway, this.#member];
    this.#gateway = undefined;
    this.#member = undefined;
    await gateway?.abort();
    await member?.close();
  }

  /** Start again on the same ports and join through `seeds`. */
  async restart(seeds: readonly string[]): Promise<void> {
    if (this.#state === 'running') return;
    this.#state = 'running';
    try {
      const { member, gateway } = await DemoGateway.#boot(this.#options, this.#udpPort, Number(new URL(this.url).port));
      this.#member = member;
      this.#gateway = gateway;
    } catch (error) {
      this.#state = 'killed';
      throw error;
    }
    this.join(seeds);
  }

  async close(): Promise<void> {
    const [gateway, member] = [this.#gateway, this.#member];
    this.#gateway = undefined;
    this.#member = undefined;
    await gateway?.close();
    await member?.close();
  }
}
