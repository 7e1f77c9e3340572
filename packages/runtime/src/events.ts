import type {
  ConflictEffect,
  DecodeErrorEffect,
  HealthEffect,
  MemberEventEffect,
  ProbeEffect,
  UserMessageEffect,
  UserStateEffect,
} from '@swim/core';

/** A membership change as delivered to listeners and iterators. */
export type MembershipChange = Omit<MemberEventEffect, 'type'>;

/** Every event a member dispatches, by type, with its `detail`. */
export interface MemberEventMap {
  /** Any membership change; `detail.event` says which. */
  change: MembershipChange;
  join: MembershipChange;
  update: MembershipChange;
  suspect: MembershipChange;
  alive: MembershipChange;
  dead: MembershipChange;
  left: MembershipChange;
  probe: Omit<ProbeEffect, 'type'>;
  health: Omit<HealthEffect, 'type'>;
  message: Omit<UserMessageEffect, 'type'>;
  'user-state': Omit<UserStateEffect, 'type'>;
  conflict: Omit<ConflictEffect, 'type'>;
  'decode-error': Omit<DecodeErrorEffect, 'type'>;
}

/**
 * A standard EventTarget (Node and browsers alike) with typed `on` and `dispatch` helpers;
 * listeners receive `CustomEvent`s whose `detail` is typed by {@link MemberEventMap}.
 */
export class TypedEventTarget<M extends object> extends EventTarget {
  /** Listen to `type`; returns a function that removes the listener. */
  on<K extends keyof M & string>(type: K, listener: (detail: M[K]) => void, options?: AddEventListenerOptions): () => void {
    const wrapped = (event: Event) => listener((event as CustomEvent<M[K]>).detail);
    this.addEventListener(type, wrapped, options);
    return () => this.removeEventListener(type, wrapped, options);
  }

  protected dispatch<K extends keyof M & string>(type: K, detail: M[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
