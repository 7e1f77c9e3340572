import { profileConfig } from '/work/wt-restart/apps/bench/src/profiles.ts';
import { runRestart } from '/work/wt-restart/apps/bench/src/experiments/restart/run.ts';
import { SCHEDULE_DEFAULTS } from '/work/wt-restart/apps/bench/src/experiments/restart/schedule.ts';
const [scenario, nodes, seeds, ...profiles] = process.argv.slice(2);
for (const profile of profiles) for (let seed = 1; seed <= Number(seeds); seed++) {
  const r = runRestart({ scenario: scenario as 'wave', nodes: Number(nodes), seed, config: profileConfig(profile as 'default'), schedule: SCHEDULE_DEFAULTS, limitMs: 300_000 });
  console.log(profile, JSON.stringify(r));
}
