/**
 * Preloaded (`node --import`) into the agents `pnpm bench starve` starts; idle until SIGUSR2. Each
 * SIGUSR2 turns starving on or off: the event loop is blocked for SWIM_STARVE_STALL_MS, runs for
 * SWIM_STARVE_RUN_MS (0: one turn of the loop), over and over. It blocks in Atomics.wait, so a stall costs no CPU, and it
 * blocks inside a timer callback, so when it ends the timers that came due run before the packets
 * that waited are read: the order a CPU-starved process sees (a SIGSTOPped Node process, once
 * continued, reads its socket first). The agent itself is unchanged.
 *
 * When starving is turned off it prints one JSON line, `{"event":"starve-stats", ...}`, with the
 * stalls it made and how long the loop was blocked in all, so the bench reports the starving that
 * happened, not the starving it asked for.
 */
import { performance } from 'node:perf_hooks';

const stallMs = Number(process.env['SWIM_STARVE_STALL_MS']);
const runMs = Number(process.env['SWIM_STARVE_RUN_MS']);
const cell = new Int32Array(new SharedArrayBuffer(4));
let timer: ReturnType<typeof setTimeout> | undefined;
let starving = false;
let stalls = 0;
let blockedMs = 0;
let startedAt = 0;

function stall(): void {
  const from = performance.now();
  Atomics.wait(cell, 0, 0, stallMs);
  blockedMs += performance.now() - from;
  stalls++;
  // Run 0: only what is ready at once (due timers first, then packets already waiting), as a
  // process that gets the CPU for a moment; an ack to a ping sent now is read after the next stall.
  timer = runMs > 0 ? setTimeout(stall, runMs) : (setImmediate(stall) as unknown as ReturnType<typeof setTimeout>);
}

if (stallMs > 0 && runMs >= 0) {
  process.on('SIGUSR2', () => {
    starving = !starving;
    if (starving) {
      stalls = 0;
      blockedMs = 0;
      startedAt = performance.now();
      timer = setTimeout(stall, 0);
      return;
    }
    clearTimeout(timer);
    clearImmediate(timer as unknown as ReturnType<typeof setImmediate>);
    const spanMs = performance.now() - startedAt;
    process.stdout.write(`${JSON.stringify({ event: 'starve-stats', stalls, blockedMs: Math.round(blockedMs), spanMs: Math.round(spanMs) })}\n`);
  });
}
