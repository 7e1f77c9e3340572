/**
 * The page of the Chromium failover test: this tab joins through the gateways listed in the URL's
 * query (`gateway`, repeated, in order) under `name`, and shows in `window.swimFailover` what it
 * sees, which gateway it is on and its relay address (both change when it moves).
 */
import { Member } from '@swim/runtime';
import { connectWsTransport } from '../../src/index.js';

interface FailoverView {
  /** The state this tab's member holds about `name`, or undefined. */
  state(name: string): string | undefined;
  /** The gateway it is on, its relay address, its connection state. */
  url(): string;
  address(): string;
  connection(): string;
  /** Its own incarnation. */
  incarnation(): number;
  /** Address changes the transport reported (moves). */
  moves: string[];
  error?: string;
}

declare global {
  interface Window {
    swimFailover?: FailoverView;
  }
}

const query = new URLSearchParams(location.search);
const name = query.get('name')!;

async function start(): Promise<void> {
  const transport = await connectWsTransport({ url: query.getAll('gateway'), name });
  // The lan preset, as the gateways' members and the UDP members of the test.
  const member = new Member({ name, transport, preset: 'lan' });
  const moves: string[] = [];
  transport.onAddressChange((address) => moves.push(address));
  window.swimFailover = {
    state: (other) => member.member(other)?.state,
    url: () => transport.url,
    address: () => transport.address,
    connection: () => transport.state,
    incarnation: () => member.incarnation,
    moves,
  };
  await member.join(transport.seed === undefined ? [] : [transport.seed]);
}

start().catch((error: unknown) => {
  window.swimFailover = { state: () => undefined, url: () => '', address: () => '', connection: () => 'failed', incarnation: () => 0, moves: [], error: String(error) };
});
