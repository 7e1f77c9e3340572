import { Simulation, type SimEvent } from '@swim/transport-memory';

// 16 members on virtual time: converge, cut one off for 10 s as the corrections study's blackout (docs/corrections-study.md), reconnect it.
const sim = new Simulation({ seed: 1 });
const deaths: SimEvent[] = [];
sim.onEvent((e) => {
  if (e.kind === 'dead') deaths.push(e);
});

sim.startCluster(16); // n0..n15, all joining through n0 during the first second
const took = sim.runUntil(() => sim.converged(), 30_000);
console.log(`converged after ${took} ms of virtual time`);

sim.blackout(['n3']); // n3's timers keep running; its packets are held, its streams hang
sim.runFor(10_000);
sim.endBlackout(); // held packets go out now, each with a fresh latency
const back = sim.runUntil(() => sim.converged(), 60_000);

// Declaring the cut-off member dead is correct; a healthy member declared dead is the leak.
const falseDeaths = deaths.filter((e) => e.subject !== 'n3');
console.log(`n3 declared dead by ${new Set(deaths.filter((e) => e.subject === 'n3').map((e) => e.observer)).size} members`);
console.log(`healthy members declared dead: ${falseDeaths.length}; converged again ${back} ms after the blackout`);
console.log(sim.network.counters);
