/**
 * The payloads of Serf's internal queries (serf internal_query.go, keymanager.go): the key
 * request `[7]{Key}`, the key response `[8]{Keys, Message, PrimaryKey, Result}` (serf
 * nodeKeyResponse) and the conflict response `[6]` + a Serf Member. Gossip dialect, as the query
 * messages (docs/memberlist-interop.md, "Key rotation").
 */
import { MAX_NAME_BYTES } from '@swim/core';
import { unlessMalformed } from '../codec/decode-failure.js';
import { GoMsgpackWriter } from '../codec/go-msgpack-writer.js';
import { parseIpPort } from '../codec/ip.js';
import { MsgpackReader } from '../codec/msgpack-reader.js';
import { SERF_MESSAGE, writeSerfText } from './serf-messages.js';

/** The names of Serf's internal queries (serf internal_query.go), prefix included. */
export const SERF_INTERNAL_QUERY = {
  /** A liveness probe: answered by its ack alone (serf pingQuery). */
  ping: '_serf_ping',
  /** "Who holds this name?": answered with the member we hold under it (serf conflictQuery). */
  conflict: '_serf_conflict',
  /** `serf keys -install` (serf installKeyQuery). */
  installKey: '_serf_install-key',
  /** `serf keys -use`: make an installed key the primary (serf useKeyQuery). */
  useKey: '_serf_use-key',
  /** `serf keys -remove` (serf removeKeyQuery). */
  removeKey: '_serf_remove-key',
  /** `serf keys -list` (serf listKeysQuery). */
  listKeys: '_serf_list-keys',
} as const;

/** One member's answer to a key query (serf internal_query.go nodeKeyResponse). */
export interface SerfKeyResponse {
  /** Whether the operation succeeded. */
  readonly result: boolean;
  /** An error, or a warning when `result` is true (a truncated key list); '' for none. */
  readonly message: string;
  /** The installed keys in base64, primary first (list-keys only; empty otherwise). */
  readonly keys: readonly string[];
  /** The primary key in base64 (list-keys only; '' otherwise). */
  readonly primaryKey: string;
}

/** Longest key read from a key request: AES keys are 16, 24 or 32 bytes; anything longer is refused by the keyring anyway. */
const MAX_KEY_BYTES = 64;
/** Most keys read from one key response (serf caps a list at QueryResponseSizeLimit / 25 = 40). */
const MAX_KEYS = 256;
/** Longest message or base64 key read from a key response. */
const MAX_KEY_TEXT = 4096;

/** `[7]{Key}` (serf keyRequest): the raw key bytes; list-keys sends an empty key (`a0`, not nil). */
export function encodeKeyRequest(key: Uint8Array): Uint8Array {
  const writer = new GoMsgpackWriter(16 + key.length);
  writer.byte(SERF_MESSAGE.keyRequest);
  writer.mapHeader(1);
  writer.key('Key');
  writer.rawString(key);
  return writer.finish();
}

/**
 * The key of a key request, or undefined when it does not decode. Like Serf's handlers, the type
 * byte is not checked; unlike them, an empty payload is refused rather than crashing (serf
 * handleUseKey slices `q.Payload[1:]` without a length check).
 */
export function decodeKeyRequest(payload: Uint8Array): Uint8Array | undefined {
  if (payload.length < 2) return undefined;
  return unlessMalformed(() => {
    const reader = new MsgpackReader(payload, 1);
    let key: Uint8Array = new Uint8Array(0);
    const count = reader.mapHeader('key request');
    for (let i = 0; i < count; i++) {
      if (reader.key() === 'Key') key = reader.bytes('Key', MAX_KEY_BYTES);
      else reader.skip();
    }
    return key;
  });
}

/** `[8]{Keys, Message, PrimaryKey, Result}`; Keys is nil when there are none, as Go's nil slice. */
export function encodeKeyResponse(response: SerfKeyResponse): Uint8Array {
  const writer = new GoMsgpackWriter(64 + response.message.length * 3 + response.keys.length * 48);
  writer.byte(SERF_MESSAGE.keyResponse);
  writer.mapHeader(4);
  writer.key('Keys');
  if (response.keys.length === 0) writer.nil();
  else {
    writer.arrayHeader(response.keys.length);
    for (const key of response.keys) writeSerfText(writer, key, 'string');
  }
  writer.key('Message');
  writeSerfText(writer, response.message, 'string');
  writer.key('PrimaryKey');
  writeSerfText(writer, response.primaryKey, 'string');
  writer.key('Result');
  writer.bool(response.result);
  return writer.finish();
}

/** A key response read as Serf's KeyManager reads it: undefined when it is not `[8]` + a decodable body. */
export function decodeKeyResponse(payload: Uint8Array): SerfKeyResponse | undefined {
  if (payload.length < 2 || payload[0] !== SERF_MESSAGE.keyResponse) return undefined;
  return unlessMalformed(() => {
    const reader = new MsgpackReader(payload, 1);
    let result = false;
    let message = '';
    let keys: string[] = [];
    let primaryKey = '';
    const count = reader.mapHeader('key response');
    for (let i = 0; i < count; i++) {
      switch (reader.key()) {
        case 'Result':
          result = reader.bool('Result');
          break;
        case 'Message':
          message = reader.text('Message', MAX_KEY_TEXT);
          break;
        case 'PrimaryKey':
          primaryKey = reader.text('PrimaryKey', MAX_KEY_TEXT);
          break;
        case 'Keys': {
          const n = reader.arrayHeader('Keys');
          if (n > MAX_KEYS) return undefined;
          keys = [];
          for (let k = 0; k < n; k++) keys.push(reader.text('Keys', MAX_KEY_TEXT));
          break;
        }
        default:
          reader.skip();
      }
    }
    return { result, message, keys, primaryKey };
  });
}

/** serf MemberStatus, as `_serf_conflict` answers carry it. */
export const SERF_MEMBER_STATUS = {
  /** StatusNone: not known. */
  none: 0,
  /** StatusAlive. */
  alive: 1,
  /** StatusLeaving: its leave intent seen, the leave not yet done. */
  leaving: 2,
  /** StatusLeft: left gracefully. */
  left: 3,
  /** StatusFailed: declared dead without a leave. */
  failed: 4,
} as const;

/** A member as Serf describes one (serf serf.go Member), for `_serf_conflict` answers. */
export interface SerfMemberRecord {
  /** The node name. */
  readonly name: string;
  /** "ip:port". */
  readonly address: string;
  /** Its Serf tags (decoded from the member's meta). */
  readonly tags: Readonly<Record<string, string>>;
  /** {@link SERF_MEMBER_STATUS}. */
  readonly status: number;
  /** memberlist Vsn: ProtocolMin, ProtocolMax, ProtocolCur, DelegateMin, DelegateMax, DelegateCur. */
  readonly vsn: readonly number[];
}

/**
 * `[6]` + the Member record for the contested name as we hold it, or `[6] c0` when we hold none
 * (serf internal_query.go handleConflict encodes a nil *Member so). Tags in sorted key order
 * (Go writes a map in random order).
 */
export function encodeConflictResponse(member: SerfMemberRecord | undefined): Uint8Array {
  const writer = new GoMsgpackWriter(160);
  writer.byte(SERF_MESSAGE.conflictResponse);
  if (member === undefined) {
    writer.nil();
    return writer.finish();
  }
  const address = parseIpPort(member.address);
  const ip = typeof address === 'string' ? new Uint8Array(0) : address.ip;
  const port = typeof address === 'string' ? 0 : address.port;
  const [pmin, pmax, pcur, dmin, dmax, dcur] = member.vsn;
  writer.mapHeader(11);
  writer.key('Addr');
  writer.rawString(ip, true);
  writeVersions(writer, 'Delegate', dcur, dmax, dmin);
  writer.key('Name');
  writeSerfText(writer, member.name, 'string');
  writer.key('Port');
  writer.uint(port);
  writeVersions(writer, 'Protocol', pcur, pmax, pmin);
  writer.key('Status');
  writer.uint(member.status);
  writer.key('Tags');
  const tags = Object.keys(member.tags).sort();
  writer.mapHeader(tags.length);
  for (const tag of tags) {
    writeSerfText(writer, tag, 'string');
    writeSerfText(writer, member.tags[tag]!, 'string');
  }
  return writer.finish();
}

/** The name and address in a conflict response, or undefined for `[6] c0` or what does not decode (for tests and logs). */
export function decodeConflictResponse(payload: Uint8Array):
  | {
      /** The member's name (Member.Name). */
      name: string;
      /** Its IP, 4 or 16 bytes as sent (Member.Addr). */
      ip: Uint8Array;
      /** Its port (Member.Port). */
      port: number;
      /** Its {@link SERF_MEMBER_STATUS} (Member.Status). */
      status: number;
    }
  | undefined {
  if (payload.length < 2 || payload[0] !== SERF_MESSAGE.conflictResponse || payload[1] === 0xc0) return undefined;
  return unlessMalformed(() => {
    const reader = new MsgpackReader(payload, 1);
    let name = '';
    let ip: Uint8Array = new Uint8Array(0);
    let port = 0;
    let status = 0;
    const count = reader.mapHeader('member');
    for (let i = 0; i < count; i++) {
      const key = reader.key();
      if (key === 'Name') name = reader.text('Name', MAX_NAME_BYTES);
      else if (key === 'Addr') ip = reader.bytes('Addr', 16);
      else if (key === 'Port') port = reader.uint('Port', 0xffff);
      else if (key === 'Status') status = reader.uint('Status', 0xff);
      else reader.skip();
    }
    return { name, ip, port, status };
  });
}

/** `<prefix>Cur`, `<prefix>Max`, `<prefix>Min`, in go-msgpack's sorted field order; a missing version is 0. */
function writeVersions(writer: GoMsgpackWriter, prefix: 'Delegate' | 'Protocol', cur: number | undefined, max: number | undefined, min: number | undefined): void {
  for (const [suffix, value] of [['Cur', cur], ['Max', max], ['Min', min]] as const) {
    writer.key(prefix + suffix);
    writer.uint(value ?? 0);
  }
}
