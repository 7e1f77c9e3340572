import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { it } from 'vitest';
import { connectWsTransport, createWsGateway } from '../src/node/index.js';
import { waitFor } from './helpers.js';

it('debug', async () => {
  const u = new Member({ name: 'udp-0', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'lan' });
  const ga = new Member({ name: 'ga', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'lan' });
  const gb = new Member({ name: 'gb', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'lan' });
  await ga.join([u.address]); await gb.join([u.address]);
  const A = await createWsGateway({ seed: ga.address, seedName: 'ga', credentialSecret: 'x'.repeat(20) });
  const B = await createWsGateway({ seed: gb.address, seedName: 'gb', credentialSecret: 'x'.repeat(20) });
  const t = await connectWsTransport({ url: [A.url, B.url], name: 'tab' });
  const m = new Member({ name: 'tab', transport: t, preset: 'lan' });
  m.on('change', (c) => console.log('tab sees', c.event, c.member.name, c.member.address, c.member.incarnation));
  u.on('change', (c) => console.log('udp sees', c.event, c.member.name, c.member.address, c.member.incarnation));
  u.on('conflict', (c) => console.log('udp conflict', JSON.stringify(c)));
  await m.join([t.seed!]);
  await waitFor(() => u.member('tab')?.state === 'alive');
  console.log('before', t.address);
  await A.close();
  await waitFor(() => t.state === 'open' && t.url === B.url);
  console.log('after', t.address, m.address, JSON.stringify(m.member('tab')));
  await waitFor(() => u.member('tab')?.address === t.address, 5000);
  console.log('udp view', JSON.stringify(u.member('tab')), 'B counters', JSON.stringify(B.counters.spoof), B.counters.spoofDropped, B.counters.foreignMovesStripped, B.counters.packetsIn);
  await Promise.all([u, ga, gb, m].map((x) => x.close())); await B.close();
}, 30000);
