/**
 * A Node process in a Serf cluster: it joins through a Serf agent, lists the members with their
 * tags, prints Serf user events (`serf event NAME PAYLOAD`), sends one of its own, and on Ctrl-C
 * (SIGINT or SIGTERM) leaves so that `serf members` shows it `left`.
 *
 *   serf agent -node=serf-1 -bind=127.0.0.1:7946 &
 *   pnpm --filter @swim/adapter-memberlist example 127.0.0.1:7946
 */
import { decodeTags, encodeTags, memberlistCodec, memberlistStreamFraming, SerfLayer } from '@swim/adapter-memberlist';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';

const seed = process.argv[2] ?? '127.0.0.1:7946';
const name = process.argv[3] ?? 'node-js-1';

// memberlist's wire on one UDP and TCP port: its codec inside the member, its framing on the streams.
const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, streamFraming: memberlistStreamFraming });
const member = new Member({ name, transport, codec: memberlistCodec(), meta: encodeTags({ role: 'web', lang: 'typescript' }) });
const serf = new SerfLayer(member);

member.on('change', ({ event, member: m }) => console.log(`${event} ${m.name} ${m.address} ${JSON.stringify(decodeTags(m.meta))}`));
serf.on('user-event', ({ name: event, payload }) => console.log(`serf event ${event}: ${new TextDecoder().decode(payload)}`));

await serf.join([seed]);
console.log(`joined through ${seed} as ${name} (${member.address})`);
serf.sendEvent('hello', new TextEncoder().encode(`from ${name}`), { coalesce: false });

const stop = async () => {
  const { spread } = await serf.leave();
  console.log(`left (spread: ${spread})`);
  await member.close();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
