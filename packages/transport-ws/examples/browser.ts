// The browser side: bundle this (esbuild, vite, ...) into a page.
import { Member } from '@swim/runtime';
import { connectWsTransport, leaveOnPageHide } from '@swim/transport-ws';

// The member must use the name it connected with: the gateway drops traffic that speaks for any other.
const name = `browser-${crypto.randomUUID()}`;
const transport = await connectWsTransport({ url: 'wss://example.org/swim', name, token: 'change me' });
const member = new Member({ name, transport });
await member.join(transport.seed === undefined ? [] : [transport.seed]);
member.on('change', (change) => console.log(change.member.name, change.event));
transport.onStateChange((state) => console.log(`gateway connection: ${state}`));
leaveOnPageHide(member);
