import { createWsGateway, connectWsTransport, type WsGateway, type WsGatewayOptions, type WsTransport, type WsTransportOptions } from '../src/node/index.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Poll `condition` every 20 ms until it holds or `timeoutMs` passes (it may be async: a page's state). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(20);
  }
  return condition();
}

/** Gateways and clients made through `gateway` / `client`, closed together by `closeAll`. */
export function pool() {
  const gateways: WsGateway[] = [];
  const clients: WsTransport[] = [];
  let n = 0;
  return {
    gateway: async (options: WsGatewayOptions = {}): Promise<WsGateway> => {
      const gateway = await createWsGateway(options);
      gateways.push(gateway);
      return gateway;
    },
    client: async (gateway: WsGateway, options: Partial<WsTransportOptions> = {}): Promise<WsTransport> => {
      const client = await connectWsTransport({ url: gateway.url, name: `client-${++n}`, ...options });
      clients.push(client);
      return client;
    },
    closeAll: async (): Promise<void> => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await Promise.all(gateways.splice(0).map((g) => g.close()));
    },
  };
}
