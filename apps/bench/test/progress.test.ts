import { describe, expect, it } from 'vitest';
import { Progress } from '../src/progress.js';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, sink: { isTTY, columns: 200, write: (t: string) => writes.push(t) } };
}

describe('progress', () => {
  it('prints one line per finished cell when not on a terminal', () => {
    let now = 0;
    const { writes, sink: s } = sink(false);
    const p = new Progress('blackout', { cells: 2, runs: 4 }, { sink: s, clock: () => now });
    p.startCell('cut=8 outage=24s memberlist');
    now = 1000;
    p.runDone();
    now = 2000;
    p.runDone();
    p.cellDone('false deaths 3, 5');
    expect(writes).toEqual(['[blackout] 1/2 cut=8 outage=24s memberlist: false deaths 3, 5 (elapsed 2.0 s, ETA 2.0 s)\n']);
    p.finish();
    expect(writes).toHaveLength(1);
  });

  it('rewrites a single line on a terminal, with elapsed time and ETA, and clears it at the end', () => {
    let now = 0;
    const { writes, sink: s } = sink(true);
    const p = new Progress('crash', { cells: 1, runs: 3 }, { sink: s, clock: () => now });
    p.startCell('n=128 default');
    now = 3000;
    p.runDone();
    const last = writes[writes.length - 1]!;
    expect(last.startsWith('\r\x1b[2K[crash] cell 1/1 run 1/3')).toBe(true);
    expect(last).toContain('elapsed 3.0 s');
    expect(last).toContain('ETA 6.0 s');
    expect(writes.every((w) => !w.includes('\n'))).toBe(true);
    p.finish();
    expect(writes[writes.length - 1]).toBe('\r\x1b[2K');
  });

  it('keeps the live line within the terminal width', () => {
    const { writes, sink: s } = sink(true);
    const p = new Progress('x', { cells: 1, runs: 1 }, { sink: { ...s, columns: 40 } });
    p.startCell('a very long cell description that would wrap around the terminal');
    expect(writes[writes.length - 1]!.replace('\r\x1b[2K', '').length).toBeLessThanOrEqual(39);
  });
});
