/** What {@link leaveOnPageHide} needs of a member (a @swim/runtime Member fits). */
export interface LeavingMember {
  /** Announce a graceful leave and wait at most `timeoutMs` for it to spread (`Member.leave`). */
  leave(options?: { readonly timeoutMs?: number }): Promise<unknown>;
  /** Stop the member and its transport (`Member.close`). */
  close(): Promise<void>;
}

/** Where `pagehide` is dispatched: the window (`globalThis` in a page). */
export interface PageHideTarget {
  /** Add the `pagehide` listener. */
  addEventListener(type: 'pagehide', listener: () => void): void;
  /** Remove it: once it ran, or when the function {@link leaveOnPageHide} returned is called. */
  removeEventListener(type: 'pagehide', listener: () => void): void;
}

/**
 * When the page is hidden for good (navigation, tab closed, bfcache), announce a graceful leave
 * and then close the member. `leave()` sends the leave message at once; the member is closed when
 * the leave has spread or after `leaveTimeoutMs` (default 250 ms), whichever comes first, since a
 * page going away has little time left. Returns a function that stops listening. Does nothing
 * when `target` has no `addEventListener` (e.g. Node).
 */
export function leaveOnPageHide(
  member: LeavingMember,
  target: PageHideTarget = globalThis as unknown as PageHideTarget,
  options: { readonly leaveTimeoutMs?: number } = {},
): () => void {
  if (typeof target?.addEventListener !== 'function') return () => {};
  const onPageHide = () => {
    target.removeEventListener('pagehide', onPageHide);
    let leaving: Promise<unknown>;
    try {
      leaving = member.leave({ timeoutMs: options.leaveTimeoutMs ?? 250 });
    } catch {
      leaving = Promise.resolve(); // already closed
    }
    void leaving.then(
      () => member.close(),
      () => member.close(),
    );
  };
  target.addEventListener('pagehide', onPageHide);
  return () => target.removeEventListener('pagehide', onPageHide);
}
