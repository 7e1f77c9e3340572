import { encodePacket } from '../src/codec/codec.js';
import type { Message } from '../src/codec/messages.js';
import { measureOpsPerSecond } from './measure.js';
const ping: Message = { type: 'ping', seq: 123_456, target: 'node-17.example', sourceName: 'node-3.example', sourceAddress: '10.0.0.3:7946' };
const msgs: Message[] = [ping];
for (let i = 0; i < 6; i++) msgs.push(i % 2 === 0 ? { type: 'alive', incarnation: 1000 + i, node: `node-${i}.example`, address: `10.0.0.${i}:7946`, meta: new Uint8Array(0) } : { type: 'suspect', incarnation: 1000 + i, node: `node-${i}.example`, from: 'node-3.example' });
for (let k = 0; k < 5; k++) console.log(Math.round(measureOpsPerSecond(() => encodePacket(msgs), 1000).opsPerSecond));
