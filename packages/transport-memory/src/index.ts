/**
 * @swim/transport-memory: an in-memory network with deterministic fault injection, a virtual
 * clock, and the simulator that runs many @swim/runtime members on them (docs/design.md, "The
 * simulator"). Browser-safe; nothing here reads the wall clock or Math.random except
 * `realScheduler`, which is real time by definition.
 *
 * @packageDocumentation
 */
export { VirtualClock } from './virtual-clock.js';
export { realScheduler, type Scheduler } from './scheduler.js';
export { PausableClock } from './pausable-clock.js';
export { Faults } from './faults.js';
export { MemoryNetwork, type MemoryNetworkOptions } from './network.js';
export type { MemoryTransport } from './memory-transport.js';
export { constantLatency, uniformLatency, logNormalLatency, pairLatency, type LatencyModel, type LogNormalLatencyOptions } from './latency.js';
export { DROP_CAUSES, type DropCause, type NetworkCounters } from './counters.js';
export {
  Simulation,
  type SimulationOptions,
  type SimMemberOptions,
  type StartClusterOptions,
  type RestartOptions,
  type SimEvent,
  type SimFailure,
} from './simulation.js';
