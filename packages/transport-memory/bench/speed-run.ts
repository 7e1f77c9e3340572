/**
 * The measurement behind bench/speed.ts (which makes sure the workspace sources are used).
 * Arguments: member counts (default 128 1000), `--seconds=N` wall seconds per measurement
 * (default 5), `--seed=N` (default 1).
 */
import { Simulation } from '../src/index.js';

interface Result {
  readonly members: number;
  readonly convergeSimMs: number;
  readonly convergeWallMs: number;
  readonly simSeconds: number;
  readonly wallSeconds: number;
  readonly packetsPerSimSecond: number;
  readonly messagesPerSimSecond: number;
  readonly bytesPerSimSecond: number;
  readonly suspicions: number;
}

/** Targets from the brief: ≥ 100x real time at 128 members, ≥ 10x at 1,000. */
function target(members: number): number {
  return members <= 128 ? 100 : 10;
}

function measure(members: number, wallBudgetMs: number, seed: number): Result {
  const sim = new Simulation({ seed });
  sim.startCluster(members);
  const convergeStart = performance.now();
  const convergeSimMs = sim.runUntil(() => sim.converged(), 600_000, 500);
  const convergeWallMs = performance.now() - convergeStart;

  // Settle: let the join gossip drain and push-pull schedules spread out, then measure.
  sim.runFor(10_000);
  let suspicions = 0;
  sim.onEvent((e) => {
    if (e.kind === 'suspect' || e.kind === 'dead') suspicions++;
  });
  const messagesOut = () => sim.members().reduce((sum, m) => sum + m.counters.messagesOut, 0);
  const before = sim.network.counters;
  const messagesBefore = messagesOut();
  const simStart = sim.now;
  const wallStart = performance.now();
  // Advance in 1 s slices until the wall budget is spent.
  while (performance.now() - wallStart < wallBudgetMs) sim.runFor(1_000);
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const simSeconds = (sim.now - simStart) / 1000;
  const after = sim.network.counters;
  if (!sim.converged()) throw new Error(`cluster of ${members} no longer converged after the measurement (seed ${seed})`);
  return {
    members,
    convergeSimMs,
    convergeWallMs,
    simSeconds,
    wallSeconds,
    packetsPerSimSecond: (after.packetsDelivered - before.packetsDelivered) / simSeconds,
    messagesPerSimSecond: (messagesOut() - messagesBefore) / simSeconds,
    bytesPerSimSecond: (after.bytesDelivered - before.bytesDelivered) / simSeconds,
    suspicions,
  };
}

function format(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function run(args: readonly string[]): void {
  const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);
  const seconds = Number(args.find((a) => a.startsWith('--seconds='))?.slice('--seconds='.length) ?? 5);
  const seed = Number(args.find((a) => a.startsWith('--seed='))?.slice('--seed='.length) ?? 1);
  console.log('@swim/transport-memory simulator speed (LAN preset, healthy network, steady state after convergence)');
  console.log(`node ${process.version} (${process.platform}-${process.arch}), one thread, seed ${seed}, ~${seconds} s of wall time per size`);
  console.log('');
  let failed = false;
  for (const members of sizes.length > 0 ? sizes : [128, 1000]) {
    const r = measure(members, seconds * 1000, seed);
    const speed = r.simSeconds / r.wallSeconds;
    const goal = target(members);
    failed ||= speed < goal;
    console.log(`${members} members`);
    console.log(`  converged after ${format(r.convergeSimMs / 1000, 1)} s simulated (${format(r.convergeWallMs / 1000, 2)} s wall)`);
    console.log(
      `  steady state: ${format(r.simSeconds, 0)} s simulated in ${format(r.wallSeconds, 2)} s wall = ` +
        `${format(speed, 1)} simulated s per wall s (target ${goal}x: ${speed >= goal ? 'met' : 'MISSED'})`,
    );
    console.log(
      `  traffic per simulated second: ${format(r.packetsPerSimSecond)} packets, ${format(r.messagesPerSimSecond)} messages, ` +
        `${format(r.bytesPerSimSecond / 1024, 1)} KiB; ${format((r.packetsPerSimSecond * speed) / 1000, 1)}k packets per wall s`,
    );
    console.log(`  suspicions or deaths during the measurement: ${r.suspicions}`);
  }
  if (failed) process.exitCode = 1;
}
