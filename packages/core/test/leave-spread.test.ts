import { describe, expect, it } from 'vitest';
import { encodePacket, LEAVE_TOKEN, type Effect } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * `broadcast-finished` for a leave says the leave has spread. memberlist Leave waits for it
 * whenever anyAlive() finds a member other than us that is neither dead nor left: suspects count,
 * since they may well be alive and hear it (issue 10, finding 11).
 */

const leaveFinished = (effects: readonly Effect[]) => effects.some((e) => e.type === 'broadcast-finished' && e.token === LEAVE_TOKEN);

function lone(): LoneCore {
  const core = new LoneCore({ probeIntervalMs: 60_000, probeTimeoutMs: 500, pushPullIntervalMs: 0 }, 9);
  core.introduce('a', 'b');
  return core;
}

describe('leave while peers are suspect', () => {
  it('does not report the leave spread at once when every peer is suspect, but once it has been gossiped', () => {
    const core = lone();
    core.receive('a:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'a' }]));
    core.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    expect(core.core.members().filter((m) => m.name !== 'me').map((m) => m.state)).toEqual(['suspect', 'suspect']);

    const effects = core.core.leave(core.now);
    expect(leaveFinished(effects)).toBe(false);

    core.log.length = 0;
    core.advance(core.now + 30_000);
    expect(leaveFinished(core.log.map((e) => e.effect))).toBe(true);
  });

  it('reports it at once when every peer is dead or left: nobody is there to hear it', () => {
    const core = lone();
    core.receive('a:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'b', from: 'a' }]));
    core.receive('a:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'a', from: 'a' }]));
    expect(core.core.members().map((m) => m.name)).toEqual(['me']);
    expect(leaveFinished(core.core.leave(core.now))).toBe(true);
  });
});
