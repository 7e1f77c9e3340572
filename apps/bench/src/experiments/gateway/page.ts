/**
 * The page of the Chromium run: what apps/demo/web does, less the drawing. The tab joins as a
 * member through the gateway in the URL's query (`gateway`, `name`, `token`), with the lan preset,
 * and leaves on pagehide (leaveOnPageHide). `window.bench` lets the bench see that it joined and
 * stop leaving on hide, for a page that is to vanish without a leave.
 */
import { Member } from '@swim/runtime';
import { connectWsTransport, leaveOnPageHide } from '@swim/transport-ws';

interface BenchView {
  joined: boolean;
  error?: string;
  /** Stop leaving on pagehide. */
  keepOnHide(): void;
}

declare global {
  interface Window {
    bench?: BenchView;
  }
}

const query = new URLSearchParams(location.search);
const name = query.get('name')!;
const view: BenchView = { joined: false, keepOnHide: () => {} };
window.bench = view;

async function start(): Promise<void> {
  const transport = await connectWsTransport({ url: query.get('gateway')!, name, token: query.get('token')! });
  const member = new Member({ name, transport, preset: 'lan' });
  view.keepOnHide = leaveOnPageHide(member);
  await member.join(transport.seed === undefined ? [] : [transport.seed]);
  view.joined = true;
}

start().catch((error: unknown) => {
  view.error = String(error);
});
