// The usage example of README.md and packages/core/README.md (keep the three in step).
// Run: cd packages/core && node --conditions=@swim/source --import tsx examples/readme.ts
import { SwimCore, type Effect } from '@swim/core';

// A toy shell: three members in one process, packets and streams delivered at once, virtual time.
// A real shell sends the bytes over UDP/TCP/WebSocket and arms one timer at nextDeadline().
interface Member { core: SwimCore; address: string }
const members = new Map<string, Member>(); // by address
const work: Array<() => void> = [];
const streams = new Map<number, { requester: Member; requestId: number }>();
let nextStreamId = 1;
let now = 0;

function add(name: string, seed: number): Member {
  const member = { core: new SwimCore({ name, address: `${name}:7946`, seed, now }), address: `${name}:7946` };
  members.set(member.address, member);
  return member;
}

/** Carry out what a core asked for. */
function execute(from: Member, effects: Effect[]): void {
  for (const effect of effects) {
    switch (effect.type) {
      case 'send-packet': {
        const to = members.get(effect.to); // undefined: the packet is lost
        if (to) work.push(() => execute(to, to.core.receivePacket(from.address, effect.bytes, now)));
        break;
      }
      case 'stream-request': {
        const to = members.get(effect.to);
        const { requestId } = effect;
        if (!to) {
          work.push(() => execute(from, from.core.step({ type: 'stream-failed', requestId, reason: 'unreachable' }, now)));
          break;
        }
        const streamId = nextStreamId++;
        if (effect.expectReply) streams.set(streamId, { requester: from, requestId });
        work.push(() => execute(to, to.core.receiveStream(streamId, from.address, effect.bytes, now)));
        break;
      }
      case 'stream-reply': {
        const stream = streams.get(effect.streamId);
        streams.delete(effect.streamId);
        if (!stream) break;
        const { requester, requestId } = stream;
        const input = effect.bytes
          ? ({ type: 'stream-response', requestId, bytes: effect.bytes } as const)
          : ({ type: 'stream-failed', requestId, reason: 'closed' } as const);
        work.push(() => execute(requester, requester.core.step(input, now)));
        break;
      }
      case 'member':
        console.log(`${(now / 1000).toFixed(1).padStart(5)} s  ${from.core.name} sees ${effect.member.name} ${effect.event}`);
        break;
      default: // probe results, health changes, user messages, ...: not needed here
        break;
    }
  }
}

/** Deliver everything pending, then jump to the next deadline and tick the cores that are due. */
function runUntil(end: number): void {
  for (;;) {
    while (work.length > 0) work.shift()!();
    const next = Math.min(...[...members.values()].map((m) => m.core.nextDeadline() ?? Infinity));
    if (next > end) break;
    now = Math.max(now, next);
    for (const m of members.values()) if ((m.core.nextDeadline() ?? Infinity) <= now) execute(m, m.core.tick(now));
  }
  now = end;
}

const a = add('a', 1);
const b = add('b', 2);
const c = add('c', 3);
execute(b, b.core.join([a.address], 1, now)); // join through a: a push-pull over a stream
execute(c, c.core.join([a.address], 2, now));
runUntil(5_000);
console.log('a knows', a.core.members().map((m) => `${m.name} (${m.state})`).join(', '));

members.delete(c.address); // c crashes: nothing reaches it any more
runUntil(30_000); // a and b suspect c, then declare it dead
console.log('a knows', a.core.members().map((m) => `${m.name} (${m.state})`).join(', '));
