import type { SwimConfig } from '../config/config.js';

/**
 * Local health from our own timers (Lifeguard §IV.A, local health awareness). The shell arms one
 * timer at the core's `nextDeadline()` and calls in when it fires; a call that comes far later than
 * that deadline means our timers ran late: a hidden browser tab whose timers are throttled (Chrome
 * wakes them once a second, once a minute under intensive throttling), a stalled or overloaded
 * process. It is evidence about us, not about the members whose deadlines passed meanwhile: their
 * answers may be queued behind the stall, read right after this call. memberlist has no such rule:
 * its timers judge whenever they fire.
 *
 * Any input can be the first call after a stall (the timer, or a packet queued behind it), and every
 * call runs the deadlines that are due, so every call is checked, before its input is applied.
 */
export function isLateCall(config: SwimConfig, askedFor: number | undefined, now: number): boolean {
  return config.lateTickMs > 0 && askedFor !== undefined && now - askedFor > config.lateTickMs;
}

/**
 * How long a suspicion that came due during a stall still waits: the overdue grace of correction 1
 * (docs/design.md), the time a suspect gets to hear and refute an accusation it may have missed, and
 * at least one probe timeout, the time an answer queued behind the stall gets to arrive (and the
 * verdict check of direct refutation its whole wait). Not the suspicion's remaining minimum: a
 * suspicion that came due has used its minimum already, so that would be no wait at all.
 */
export function lateSuspicionGraceMs(config: SwimConfig): number {
  return Math.max(config.overdueGraceMs, config.probeTimeoutMs);
}
