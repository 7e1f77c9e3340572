/**
 * Serf's own messages, carried in memberlist user messages (`[8]` + these bytes) and in the
 * push-pull user state: one Serf type byte, then a msgpack map (serf messages.go). A member that
 * is not a Serf agent still has to speak two of them: the leave intent, without which Serf lists a
 * graceful leave as "failed", and the Lamport times it reads from the others' intents and state
 * to make its own intent newer than anything Serf has seen (serf handleNodeLeaveIntent).
 */
import { DecodeFailure } from '../codec/decode-failure.js';
import { GoMsgpackWriter } from '../codec/go-msgpack-writer.js';
import { MsgpackReader } from '../codec/msgpack-reader.js';

/** serf messageType. */
export const SERF_MESSAGE = {
  /** serf messageLeaveType: a node's leave intent. */
  leave: 0,
  /** serf messageJoinType: a node's join intent. */
  join: 1,
  /** serf messagePushPullType: Serf's push-pull user state (its Lamport clocks, member status times and recent events). */
  pushPull: 2,
  /** serf messageUserEventType: a user event (`serf event`). */
  userEvent: 3,
  /** serf messageQueryType: a query (`serf query`, key commands). */
  query: 4,
  /** serf messageQueryResponseType: an answer to a query. */
  queryResponse: 5,
  /** serf messageConflictResponseType: an answer to a name conflict query. */
  conflictResponse: 6,
  /** serf messageKeyRequestType: a key command's request. */
  keyRequest: 7,
  /** serf messageKeyResponseType: a key command's answer. */
  keyResponse: 8,
  /** serf messageRelayType: a query response relayed through another member. */
  relay: 9,
} as const;

/** Longest node name read from a Serf message (Serf's ValidateNodeNames allows 128). */
const MAX_NAME_BYTES = 128;
/** Longest user event name and payload read (Serf's UserEventSizeLimit is 512 for both together). */
const MAX_EVENT_BYTES = 9 * 1024;

/** What a Serf message tells a non-Serf member: its kind and Lamport time (0 when it carries none we use). */
export type SerfMessage =
  | {
      /** A leave intent (serf messageLeave). */
      readonly kind: 'leave';
      /** Serf's membership Lamport time of the intent. */
      readonly ltime: number;
      /** The node that is leaving. */
      readonly node: string;
      /** Serf's Prune flag (`serf force-leave -prune`): remove the node from the member list at once. */
      readonly prune: boolean;
    }
  | {
      /** A join intent (serf messageJoin). */
      readonly kind: 'join';
      /** Serf's membership Lamport time of the intent. */
      readonly ltime: number;
      /** The node that joined. */
      readonly node: string;
    }
  | {
      /** A user event (serf messageUserEvent). */
      readonly kind: 'user-event';
      /** Serf's user event Lamport time. */
      readonly ltime: number;
      /** The event's name. */
      readonly name: string;
      /** The event's payload. */
      readonly payload: Uint8Array;
      /** Serf's CC flag: agents may deliver only the newest event of this name from a burst. */
      readonly coalesce: boolean;
    }
  | {
      /** A query (serf messageQuery), not answered here. */
      readonly kind: 'query';
      /** Serf's query Lamport time. */
      readonly ltime: number;
    }
  | {
      /** Any other Serf message type. */
      readonly kind: 'other';
      /** Its Serf type byte ({@link SERF_MESSAGE}). */
      readonly type: number;
    };

/** `[0]{LTime, Node, Prune}` (serf messageLeave): the node announces its graceful leave. */
export function encodeLeaveIntent(ltime: number, node: string, prune = false): Uint8Array {
  const writer = new GoMsgpackWriter(32 + node.length * 3);
  writer.byte(SERF_MESSAGE.leave);
  writer.mapHeader(3);
  writer.key('LTime');
  writer.uint(ltime);
  writer.key('Node');
  writeName(writer, node);
  writer.key('Prune');
  writer.bool(prune);
  return writer.finish();
}

/** `[1]{LTime, Node}` (serf messageJoin): the node announces it joined at this Lamport time. */
export function encodeJoinIntent(ltime: number, node: string): Uint8Array {
  const writer = new GoMsgpackWriter(24 + node.length * 3);
  writer.byte(SERF_MESSAGE.join);
  writer.mapHeader(2);
  writer.key('LTime');
  writer.uint(ltime);
  writer.key('Node');
  writeName(writer, node);
  return writer.finish();
}

/** `[3]{CC, LTime, Name, Payload}` (serf messageUserEvent), what `serf event` sends. */
export function encodeUserEvent(ltime: number, name: string, payload: Uint8Array, coalesce: boolean): Uint8Array {
  const writer = new GoMsgpackWriter(48 + name.length * 3 + payload.length);
  writer.byte(SERF_MESSAGE.userEvent);
  writer.mapHeader(4);
  writer.key('CC');
  writer.bool(coalesce);
  writer.key('LTime');
  writer.uint(ltime);
  writer.key('Name');
  writeName(writer, name);
  writer.key('Payload');
  writer.rawString(payload);
  return writer.finish();
}

/** The Serf message in a user message's bytes; undefined when they are not one (never throws). */
export function readSerfMessage(bytes: Uint8Array): SerfMessage | undefined {
  if (bytes.length < 2) return undefined;
  const type = bytes[0]!;
  try {
    switch (type) {
      case SERF_MESSAGE.leave:
      case SERF_MESSAGE.join: {
        const fields = readFields(bytes, ['LTime', 'Node', 'Prune']);
        const ltime = fields.uint('LTime');
        const node = fields.text('Node', MAX_NAME_BYTES);
        return type === SERF_MESSAGE.leave ? { kind: 'leave', ltime, node, prune: fields.bool('Prune') } : { kind: 'join', ltime, node };
      }
      case SERF_MESSAGE.userEvent: {
        const fields = readFields(bytes, ['CC', 'LTime', 'Name', 'Payload']);
        return {
          kind: 'user-event',
          ltime: fields.uint('LTime'),
          name: fields.text('Name', MAX_EVENT_BYTES),
          payload: fields.bytes('Payload', MAX_EVENT_BYTES),
          coalesce: fields.bool('CC'),
        };
      }
      case SERF_MESSAGE.query:
        return { kind: 'query', ltime: readFields(bytes, ['LTime']).uint('LTime') };
      default:
        return { kind: 'other', type };
    }
  } catch (failure) {
    if (failure instanceof DecodeFailure) return undefined;
    throw failure;
  }
}

/** The three Lamport clocks of Serf's push-pull user state (serf messagePushPull); undefined when it is not one. */
export function readPushPullClocks(state: Uint8Array):
  | {
      /** Serf's membership Lamport time (messagePushPull LTime). */
      ltime: number;
      /** Serf's user event Lamport time (messagePushPull EventLTime). */
      eventLTime: number;
      /** Serf's query Lamport time (messagePushPull QueryLTime). */
      queryLTime: number;
    }
  | undefined {
  if (state.length < 2 || state[0] !== SERF_MESSAGE.pushPull) return undefined;
  try {
    const fields = readFields(state, ['LTime', 'EventLTime', 'QueryLTime']);
    return { ltime: fields.uint('LTime'), eventLTime: fields.uint('EventLTime'), queryLTime: fields.uint('QueryLTime') };
  } catch (failure) {
    if (failure instanceof DecodeFailure) return undefined;
    throw failure;
  }
}

/** Wanted fields of the map after the type byte, each as its raw span; others skipped (Go ignores unknown keys). */
function readFields(bytes: Uint8Array, wanted: readonly string[]) {
  const reader = new MsgpackReader(bytes, 1);
  const positions = new Map<string, number>();
  const count = reader.mapHeader('serf message');
  for (let i = 0; i < count; i++) {
    const key = reader.key();
    if (wanted.includes(key)) positions.set(key, reader.position);
    reader.skip();
  }
  const at = (field: string) => {
    const position = positions.get(field);
    return position === undefined ? undefined : new MsgpackReader(bytes, position);
  };
  return {
    uint: (field: string) => at(field)?.uint(field, Number.MAX_SAFE_INTEGER) ?? 0,
    bool: (field: string) => at(field)?.bool(field) ?? false,
    text: (field: string, max: number) => at(field)?.text(field, max) ?? '',
    bytes: (field: string, max: number) => at(field)?.bytes(field, max) ?? new Uint8Array(0),
  };
}

/** A Go string; throws `Failure` ("a Serf `what` must be well-formed UTF-16") for a lone surrogate, which Go would send as U+FFFD. */
export function writeSerfText(writer: GoMsgpackWriter, text: string, what: string, Failure: typeof RangeError | typeof TypeError = RangeError): void {
  if (!writer.text(text)) throw new Failure(`a Serf ${what} must be well-formed UTF-16 (no lone surrogate)`);
}

function writeName(writer: GoMsgpackWriter, name: string): void {
  writeSerfText(writer, name, 'name', TypeError);
}
