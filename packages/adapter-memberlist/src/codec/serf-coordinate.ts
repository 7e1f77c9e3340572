import type { AckPayload, AckPayloadContent, Coordinate } from '@swim/core';
import { unlessMalformed } from './decode-failure.js';
import { GoMsgpackWriter } from './go-msgpack-writer.js';
import { MsgpackReader } from './msgpack-reader.js';

/**
 * Serf's ping payload version (serf ping_delegate.go PingVersion): the first byte of every ack
 * payload Serf writes; Serf ignores a payload of another version ("Unsupported ping version").
 */
export const SERF_PING_VERSION = 1;

/** The most `Vec` components we read (the Vivaldi config's dimensionality is at most 64). */
const MAX_DIMENSIONS = 64;

/**
 * The payload of a direct ack as Serf writes it (serf ping_delegate.go AckPayload): the byte
 * {@link SERF_PING_VERSION}, then the coordinate as go-msgpack writes a coordinate.Coordinate
 * struct in the gossip dialect: a map with its keys sorted, `Adjustment`, `Error`, `Height`, `Vec`,
 * every number a float64 (`cb`), even 0. Empty without a coordinate: memberlist's wire carries
 * no protocol range.
 */
export function encodeSerfAckPayload(payload: AckPayload): Uint8Array {
  const coordinate = payload.coordinate;
  if (coordinate === undefined) return new Uint8Array(0);
  const w = new GoMsgpackWriter(32 + 9 * coordinate.vec.length);
  w.byte(SERF_PING_VERSION);
  w.mapHeader(4);
  w.key('Adjustment');
  w.float64(coordinate.adjustment);
  w.key('Error');
  w.float64(coordinate.error);
  w.key('Height');
  w.float64(coordinate.height);
  w.key('Vec');
  w.arrayHeader(coordinate.vec.length);
  for (const v of coordinate.vec) w.float64(v);
  return w.finish();
}

/**
 * The coordinate in a direct ack's payload, read as Serf's NotifyPingComplete reads it: nothing
 * from an empty payload; unreadable when the first byte is not {@link SERF_PING_VERSION} or the
 * rest does not decode. Like go-msgpack it takes keys in any order, skips unknown ones, leaves a
 * missing key 0 (a missing `Vec` then has no dimensions, which the Vivaldi client refuses), and
 * takes float32 or integers for a float64. Never throws; the values are judged by the Vivaldi
 * client (NaN, infinities, dimensionality: Serf's IsValid and IsCompatibleWith).
 */
export function decodeSerfAckPayload(payload: Uint8Array): AckPayloadContent {
  if (payload.length === 0) return {};
  if (payload[0] !== SERF_PING_VERSION) return { unreadableCoordinate: true };
  const coordinate = unlessMalformed(() => readCoordinate(new MsgpackReader(payload, 1)));
  return coordinate === undefined ? { unreadableCoordinate: true } : { coordinate };
}

function readCoordinate(reader: MsgpackReader): Coordinate | undefined {
  let adjustment = 0;
  let error = 0;
  let height = 0;
  let vec: number[] = [];
  for (let n = reader.mapHeader('Coordinate'); n > 0; n--) {
    switch (reader.key()) {
      case 'Adjustment':
        adjustment = reader.float('Adjustment');
        break;
      case 'Error':
        error = reader.float('Error');
        break;
      case 'Height':
        height = reader.float('Height');
        break;
      case 'Vec': {
        const count = reader.arrayHeader('Vec');
        if (count > MAX_DIMENSIONS) return undefined;
        vec = [];
        for (let i = 0; i < count; i++) vec.push(reader.float('Vec'));
        break;
      }
      default:
        reader.skip();
    }
  }
  return Object.freeze({ vec: Object.freeze(vec), error, adjustment, height });
}
