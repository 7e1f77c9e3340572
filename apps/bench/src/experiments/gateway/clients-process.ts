/**
 * A client process: a share of the browser members, each what a page runs (apps/demo/web,
 * packages/transport-ws/test/browser-page): the package's browser client from its root entry,
 * connectWsTransport with `WebSocket` from `ws`, and a @swim/runtime Member with the lan preset
 * joined through the seed the welcome names. `leave` does what leaveOnPageHide does.
 */
import { Member } from '@swim/runtime';
import { connectWsTransport, type WsTransport } from '@swim/transport-ws';
import WebSocket from 'ws';
import { Probe, serve, settings } from './probe.js';

const { url, token } = settings<{ url: string; token: string }>();
const probe = new Probe();
const tabs = new Map<string, { member: Member; transport: WsTransport }>();
/** Tabs whose member joined (the join resolved), and why the others did not. */
const joined = new Set<string>();
const failures: string[] = [];
let pending = 0;

async function open(name: string): Promise<void> {
  let transport: WsTransport | undefined;
  try {
    transport = await connectWsTransport({ url, name, token, WebSocket: WebSocket as never });
    const member = new Member({ name, transport, preset: 'lan' });
    tabs.set(name, { member, transport });
    await member.join(transport.seed === undefined ? [] : [transport.seed]);
    joined.add(name);
  } catch (error) {
    tabs.delete(name);
    void transport?.close();
    // Names and numbers out, so that the same cause is counted once.
    failures.push(String((error as Error).message ?? error).replace(/tab-\w+/g, 'tab-…'));
  } finally {
    pending--;
  }
}

/** Byte totals of every tab's transport (payloads, as the client counts them). */
function bytes(): { bytesSent: number; bytesReceived: number } {
  let bytesSent = 0;
  let bytesReceived = 0;
  for (const { transport } of tabs.values()) {
    bytesSent += transport.counters.bytesSent;
    bytesReceived += transport.counters.bytesReceived;
  }
  return { bytesSent, bytesReceived };
}

serve(async (request) => {
  switch (request.op) {
    case 'ready':
      return {};
    case 'join': {
      // Each name at its own epoch time, so that all processes together join at the bench's rate.
      for (const { name, at } of request['schedule'] as Array<{ name: string; at: number }>) {
        pending++;
        setTimeout(() => void open(name), Math.max(0, at - Date.now()));
      }
      return {};
    }
    case 'status':
      return { joined: [...joined].filter((name) => tabs.has(name)), pending, failures };
    case 'leave': {
      const at = Date.now();
      for (const name of request['names'] as string[]) {
        const tab = tabs.get(name);
        if (tab === undefined) continue;
        tabs.delete(name);
        void tab.member.leave({ timeoutMs: 250 }).then(
          () => tab.member.close(),
          () => tab.member.close(),
        );
      }
      return { at };
    }
    case 'window':
      return { window: probe.window(request['reset'] === true), bytes: bytes() };
    default:
      throw new Error(`unknown op ${request.op}`);
  }
});
