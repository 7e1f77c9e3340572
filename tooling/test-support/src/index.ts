/**
 * Test harnesses shared by the @swim packages' tests: real daemons (Serf agents, a Prometheus
 * server) on free loopback ports in process groups that never outlive the tests, and members on a
 * virtual-time in-memory network.
 */
export * from './daemons.js';
export * from './serf-agents.js';
export * from './prometheus-server.js';
export * from './virtual-cluster.js';
