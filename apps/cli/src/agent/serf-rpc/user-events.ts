/**
 * Serf user events (`serf event NAME PAYLOAD`) in both wire modes.
 * - memberlist's wire: Serf's own messageUserEvent, through the SerfLayer (sendEvent, `user-event`).
 * - @swim's wire: a broadcast (member.broadcast) under the key `event:NAME` when the event may be
 *   coalesced (a newer event of that name replaces an older one still spreading, which is what
 *   Serf's coalescing allows) or `event:NAME:LTIME:ORIGIN` when it may not; the payload is the same
 *   bytes as Serf's messageUserEvent (encodeUserEvent), stamped with this agent's user event
 *   Lamport clock, which every event received witnesses (docs/serf-rpc.md).
 * An event this agent sends reaches its own listeners too, as serf UserEvent handles its own
 * event before broadcasting it (its event handlers and RPC streams see it).
 */
import { encodeUserEvent, readSerfMessage, type SerfLayer } from '@swim/adapter-memberlist';
import { LamportClock } from '@swim/core';
import type { Member } from '@swim/runtime';
import type { RpcUserEvent } from '../../serf-rpc/backend.js';

/** Serf's UserEventSizeLimit: name and payload, encoded, at most 512 bytes. */
export const USER_EVENT_SIZE_LIMIT = 512;
export const EVENT_KEY_PREFIX = 'event:';

export interface UserEvents {
  send(name: string, payload: Uint8Array, coalesce: boolean): void;
  on(listener: (event: RpcUserEvent) => void): () => void;
  /** The user event Lamport time (serf stats event_time). */
  readonly time: number;
}

/** serf Serf.UserEvent's checks, with its texts: name + payload, then the encoded message, at most 512 bytes. */
function checkSize(name: string, payload: Uint8Array, coalesce: boolean): Uint8Array {
  if (Buffer.byteLength(name) + payload.length > USER_EVENT_SIZE_LIMIT) {
    throw new Error(`user event exceeds configured limit of ${USER_EVENT_SIZE_LIMIT} bytes before encoding`);
  }
  // Serf's stamp is its current time; the size does not depend on which (the largest is checked).
  const bytes = encodeUserEvent(Number.MAX_SAFE_INTEGER, name, payload, coalesce);
  if (bytes.length > USER_EVENT_SIZE_LIMIT) throw new Error(`encoded user event exceeds configured limit of ${USER_EVENT_SIZE_LIMIT} bytes after encoding`);
  return bytes;
}

export function serfUserEvents(serf: SerfLayer): UserEvents {
  const own = new Set<(event: RpcUserEvent) => void>();
  return {
    send: (name, payload, coalesce) => {
      checkSize(name, payload, coalesce);
      serf.sendEvent(name, payload, { coalesce });
      const event: RpcUserEvent = { kind: 'user', name, payload, ltime: serf.clocks.eventClock, coalesce };
      for (const listener of own) listener(event);
    },
    on: (listener) => {
      own.add(listener);
      const stop = serf.on('user-event', ({ name, payload, ltime, coalesce }) => listener({ kind: 'user', name, payload, ltime, coalesce }));
      return () => {
        own.delete(listener);
        stop();
      };
    },
    get time() {
      return serf.clocks.eventClock;
    },
  };
}

export function swimUserEvents(member: Member): UserEvents {
  const clock = new LamportClock();
  const listeners = new Set<(event: RpcUserEvent) => void>();
  member.on('message', ({ key, payload }) => {
    if (key === undefined || !key.startsWith(EVENT_KEY_PREFIX)) return;
    const message = readSerfMessage(payload);
    if (message?.kind !== 'user-event') return;
    clock.witness(message.ltime);
    const event: RpcUserEvent = { kind: 'user', name: message.name, payload: message.payload, ltime: message.ltime, coalesce: message.coalesce };
    for (const listener of listeners) listener(event);
  });
  return {
    send: (name, payload, coalesce) => {
      checkSize(name, payload, coalesce);
      const ltime = clock.increment();
      if (ltime === undefined) throw new Error('the user event clock is exhausted');
      const bytes = encodeUserEvent(ltime, name, payload, coalesce);
      const key = coalesce ? `${EVENT_KEY_PREFIX}${name}` : `${EVENT_KEY_PREFIX}${name}:${ltime}:${member.name}`;
      member.broadcast(key, bytes);
      const event: RpcUserEvent = { kind: 'user', name, payload, ltime, coalesce };
      for (const listener of listeners) listener(event);
    },
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get time() {
      return clock.time();
    },
  };
}
