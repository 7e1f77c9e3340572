import { describe, expect, it } from 'vitest';
import { leaveOnFreeze } from '../src/index.js';

function recordingMember(calls: string[]) {
  return {
    leave: async (options?: { timeoutMs?: number }) => {
      calls.push(`leave ${options?.timeoutMs}`);
      return { spread: false };
    },
    close: async () => {
      calls.push('close');
    },
  };
}

describe('leaveOnFreeze (Page Lifecycle freeze / resume)', () => {
  it('on freeze, leaves and closes in the same task (a frozen page runs nothing after it); on resume, calls onResume once', () => {
    const calls: string[] = [];
    const target = new EventTarget();
    leaveOnFreeze(recordingMember(calls), { target, onResume: () => calls.push('resume') });
    target.dispatchEvent(new Event('resume')); // not frozen yet: nothing to rejoin
    expect(calls).toEqual([]);
    target.dispatchEvent(new Event('freeze'));
    expect(calls, 'synchronously, before any await').toEqual(['leave 0', 'close']);
    target.dispatchEvent(new Event('freeze'));
    target.dispatchEvent(new Event('resume'));
    target.dispatchEvent(new Event('resume'));
    expect(calls).toEqual(['leave 0', 'close', 'resume']);
    // The closed member is done with: a later freeze of the page is the new member's business.
    target.dispatchEvent(new Event('freeze'));
    expect(calls).toHaveLength(3);
  });

  it('closes a member whose leave throws (already closed); the returned function unsubscribes', () => {
    const calls: string[] = [];
    const target = new EventTarget();
    leaveOnFreeze(
      {
        leave: () => {
          throw new Error('member is closed');
        },
        close: async () => {
          calls.push('close');
        },
      },
      { target },
    );
    target.dispatchEvent(new Event('freeze'));
    expect(calls).toEqual(['close']);

    const other = new EventTarget();
    const stop = leaveOnFreeze(recordingMember(calls), { target: other });
    stop();
    other.dispatchEvent(new Event('freeze'));
    expect(calls).toEqual(['close']);
  });

  it('does nothing where there is no document (Node)', () => {
    expect(typeof leaveOnFreeze(recordingMember([]))).toBe('function');
  });
});
