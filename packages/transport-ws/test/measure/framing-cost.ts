/**
 * What framing costs per relayed packet: encodePacket of a 150-byte gossip packet from one of 1,000
 * relay addresses (with the default allocator, and with the gateway's), and decodeFrame of a client's packet frame, in a tight loop. Prints ns per
 * call (best of 5 rounds).
 *
 *   npx tsx --conditions=@swim/source packages/transport-ws/test/measure/framing-cost.ts [--framing <path to framing.ts>]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as Framing from '../../src/protocol/framing.js';

const { values } = parseArgs({ options: { framing: { type: 'string' }, calls: { type: 'string', default: '1000000' } } });
const framing = (await import(values.framing === undefined ? '../../src/protocol/framing.js' : pathToFileURL(values.framing).href)) as typeof Framing;
const CALLS = Number(values.calls);
const addresses = Array.from({ length: 1_000 }, (_, i) => `10.0.${i >> 8}.${i & 0xff}:${40_000 + i}`);
const body = new Uint8Array(150).fill(9);
const frames = addresses.map((address) => framing.encodePacket(address, body));

function measure(name: string, call: (i: number) => unknown): void {
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) if (call(i) !== undefined) sink++;
    const ns = Number(process.hrtime.bigint() - started) / CALLS;
    best = Math.min(best, ns);
  }
  console.log(`${name}: ${best.toFixed(1)} ns per call (${sink > 0 ? 'ok' : 'none'})`);
}

measure('encodePacket', (i) => framing.encodePacket(addresses[i % addresses.length]!, body));
// Extra argument: the allocator of the gateway (older framing ignores it).
measure('encodePacket(Buffer.allocUnsafe)', (i) => (framing.encodePacket as (...args: unknown[]) => Uint8Array)(addresses[i % addresses.length]!, body, (n: number) => Buffer.allocUnsafe(n)));
measure('decodeFrame(packet)', (i) => framing.decodeFrame(frames[i % frames.length]!));
