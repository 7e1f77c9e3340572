import type { LeavingMember } from './page-hide.js';

/** Where the Page Lifecycle `freeze` and `resume` events are dispatched: the document. */
export interface FreezeTarget {
  /** Add a `freeze` or `resume` listener. */
  addEventListener(type: 'freeze' | 'resume', listener: () => void): void;
  /** Remove it, when the function {@link leaveOnFreeze} returned is called. */
  removeEventListener(type: 'freeze' | 'resume', listener: () => void): void;
}

/** Options of {@link leaveOnFreeze}. */
export interface LeaveOnFreezeOptions {
  /**
   * Called on `resume` after a freeze made the member leave: the page runs again and may join again,
   * with a new transport and a new `Member` (the old ones are closed). The cluster holds the old
   * name left for `leftNameReclaimMs` (30 s by default) at the old relay's address; a join under the
   * same name from the new relay is refused until then, so join under a new name or later.
   */
  readonly onResume?: () => void;
  /** Where the events come from (default `globalThis.document`). */
  readonly target?: FreezeTarget;
}

/**
 * A frozen page (Page Lifecycle `freeze`: a background tab the browser suspends to save power or
 * memory, or one entering the back/forward cache) runs no code until `resume`: it cannot answer
 * probes, and its WebSocket is closed or idle. So on `freeze` the member leaves gracefully: its leave
 * goes out at once (`Member.leave` sends it before returning) and the member is closed right away,
 * since no timer runs in a frozen page to wait for the spread; the transport's close tells the
 * gateway to release the relay. On `resume`, `onResume` lets the application join again. Returns a
 * function that stops listening. Does nothing when there is no target (e.g. Node).
 */
export function leaveOnFreeze(member: LeavingMember, options: LeaveOnFreezeOptions = {}): () => void {
  const target = options.target ?? (globalThis as { document?: FreezeTarget }).document;
  if (typeof target?.addEventListener !== 'function') return () => {};
  let left = false;
  const onFreeze = () => {
    if (left) return;
    left = true;
    try {
      // The leave is sent before leave() returns: nothing to wait for (no timer runs in a frozen page).
      member.leave({ timeoutMs: 0 }).catch(() => {});
    } catch {
      // already closed
    }
    void member.close();
  };
  const onResume = () => {
    if (!left) return;
    stop();
    options.onResume?.();
  };
  const stop = () => {
    target.removeEventListener('freeze', onFreeze);
    target.removeEventListener('resume', onResume);
  };
  target.addEventListener('freeze', onFreeze);
  target.addEventListener('resume', onResume);
  return stop;
}
