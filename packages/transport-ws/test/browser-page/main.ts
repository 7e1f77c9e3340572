/**
 * The page of the browser test: this tab joins the cluster as a member through the gateway named
 * in the URL's query (`gateway`, `name`, `token`), and shows what it sees in `window.swim`.
 */
import { Member } from '@swim/runtime';
import { connectWsTransport } from '../../src/index.js';

interface PageView {
  /** The state this tab's member holds about `name`, or undefined. */
  state(name: string): string | undefined;
  address: string;
  error?: string;
}

declare global {
  interface Window {
    swim?: PageView;
  }
}

const query = new URLSearchParams(location.search);
const name = query.get('name')!;
// Fast timers, the same as the Node members of the test.
const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000 };

async function start(): Promise<void> {
  const token = query.get('token');
  const transport = await connectWsTransport({ url: query.get('gateway')!, name, ...(token === null ? {} : { token }) });
  const member = new Member({ name, transport, preset: 'local', config });
  window.swim = { state: (other) => member.member(other)?.state, address: transport.address };
  await member.join(transport.seed === undefined ? [] : [transport.seed]);
}

start().catch((error: unknown) => {
  window.swim = { state: () => undefined, address: '', error: String(error) };
});
