/**
 * Two builds of the core measured in one process, in alternating bursts, so that both meet the same
 * load on a shared host (bench/ab.ts, bench/known-at-scale.ts). Rates are per CPU second
 * (process.cpuUsage: user + system), one per burst.
 */
export interface Build {
  readonly label: string;
  /** Handle `packets` packets; returns something derived from the work, so none of it is dropped. */
  readonly run: (packets: number) => number;
}

/** After a warm-up of 20,000 packets each, `bursts` bursts of `burstMs` per build, the first build alternating. */
export function interleavedBursts(builds: readonly Build[], options: { readonly bursts: number; readonly burstMs: number; readonly perPacket: number }): number[][] {
  const rates = builds.map(() => [] as number[]);
  let sink = 0;
  for (const build of builds) sink += build.run(20_000);
  for (let burst = 0; burst < options.bursts; burst++) {
    // Alternate which build goes first, so neither always follows the other's garbage.
    const order = burst % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i);
    for (const index of order) {
      let packets = 0;
      const cpu = process.cpuUsage();
      const start = performance.now();
      while (performance.now() - start < options.burstMs) {
        sink += builds[index]!.run(200);
        packets += 200;
      }
      const used = process.cpuUsage(cpu);
      rates[index]!.push((packets * options.perPacket) / ((used.user + used.system) / 1e6));
    }
  }
  if (sink < 0) console.log(sink);
  return rates;
}

/** "  label: median 1,234, best 1,456" per build. */
export function printRates(builds: readonly Build[], rates: readonly number[][]): void {
  const format = (n: number) => Math.round(n).toLocaleString('en-US');
  builds.forEach((build, i) => {
    const sorted = [...rates[i]!].sort((x, y) => x - y);
    console.log(`  ${build.label}: median ${format(sorted[sorted.length >> 1]!)}, best ${format(sorted[sorted.length - 1]!)}`);
  });
}
