/**
 * Codec throughput: encodes and decodes per second of a lone ping and of a compound packet of a
 * ping plus six alive/suspect updates (the common shape of a probe with piggybacked gossip).
 * Run: cd packages/core && npx tsx bench/codec.ts
 */
import { decodePacket, encodePacket } from '../src/codec/codec.js';
import type { Message } from '../src/codec/messages.js';
import { consumeSink, measureOpsPerSecond } from './measure.js';

const MIN_MS = 1000;

const ping: Message = {
  type: 'ping',
  seq: 123_456,
  target: 'node-17.example',
  sourceName: 'node-3.example',
  sourceAddress: '10.0.0.3:7946',
};

const updates: Message[] = [];
for (let i = 0; i < 6; i++) {
  updates.push(
    i % 2 === 0
      ? { type: 'alive', incarnation: 1000 + i, node: `node-${i}.example`, address: `10.0.0.${i}:7946`, meta: new Uint8Array(0) }
      : { type: 'suspect', incarnation: 1000 + i, node: `node-${i}.example`, from: 'node-3.example' },
  );
}

const cases: { name: string; messages: Message[] }[] = [
  { name: 'ping', messages: [ping] },
  { name: 'ping + 6 alive/suspect', messages: [ping, ...updates] },
];

console.log(`command: cd packages/core && npx tsx bench/codec.ts`);
console.log(`node ${process.version} (${process.platform}-${process.arch}), each figure measured over >= ${MIN_MS} ms after warm-up`);
for (const { name, messages } of cases) {
  const packet = encodePacket(messages);
  const check = decodePacket(packet);
  if (!check.ok) throw new Error(`benchmark packet does not decode: ${check.error.detail}`);
  const encode = measureOpsPerSecond(() => encodePacket(messages), MIN_MS);
  const decode = measureOpsPerSecond(() => decodePacket(packet), MIN_MS);
  console.log(
    `${name.padEnd(24)} ${String(packet.length).padStart(4)} B   ` +
      `encode ${format(encode.opsPerSecond)}/s   decode ${format(decode.opsPerSecond)}/s`,
  );
}
void consumeSink();

function format(opsPerSecond: number): string {
  return Math.round(opsPerSecond).toLocaleString('en-US').padStart(11);
}
