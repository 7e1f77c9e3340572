/**
 * Preloaded (`node --import`) into the agents `pnpm bench starve` starts; idle until SIGUSR2. Each
 * SIGUSR2 turns starving on or off: the event loop is blocked for SWIM_STARVE_STALL_MS, runs for
 * SWIM_STARVE_RUN_MS (0: one turn of the loop), over and over. It blocks in Atomics.wait, so a stall costs no CPU, and it
 * blocks inside a timer callback, so when it ends the timers that came due run before the packets
 * that waited are read: the order a CPU-starved process sees (a SIGSTOPped Node process, once
 * continued, reads its socket first). The agent itself is unchanged.
 */
const stallMs = Number(process.env['SWIM_STARVE_STALL_MS']);
const runMs = Number(process.env['SWIM_STARVE_RUN_MS']);
const cell = new Int32Array(new SharedArrayBuffer(4));
let timer: ReturnType<typeof setTimeout> | undefined;
let starving = false;

function stall(): void {
  Atomics.wait(cell, 0, 0, stallMs);
  // Run 0: only what is ready at once (due timers first, then packets already waiting), as a
  // process that gets the CPU for a moment; an ack to a ping sent now is read after the next stall.
  timer = runMs > 0 ? setTimeout(stall, runMs) : (setImmediate(stall) as unknown as ReturnType<typeof setTimeout>);
}

if (stallMs > 0 && runMs >= 0) {
  process.on('SIGUSR2', () => {
    starving = !starving;
    if (starving) timer = setTimeout(stall, 0);
    else {
      clearTimeout(timer);
      clearImmediate(timer as unknown as ReturnType<typeof setImmediate>);
    }
  });
}
