import { DecodeFailure } from './decode-failure.js';
import { GoMsgpackWriter } from './go-msgpack-writer.js';
import { lzwCompress, lzwDecompress } from './lzw.js';
import { LZW_ALGO, MSG } from './message-types.js';
import { MsgpackReader } from './msgpack-reader.js';

/** `[9]{Algo: 0, Buf: LZW(message)}` (memberlist compressPayload). */
export function compressMessage(message: Uint8Array): Uint8Array {
  const buf = lzwCompress(message);
  const w = new GoMsgpackWriter(buf.length + 16);
  w.byte(MSG.compress);
  w.mapHeader(2);
  w.key('Algo');
  w.uint(LZW_ALGO);
  w.key('Buf');
  w.rawString(buf);
  return w.finish();
}

/**
 * The message inside a compress message whose body (after the type byte) starts at `start`
 * (memberlist decompressPayload), inflated to at most `maxBytes`. With `exact`, the body must end
 * at `end` (a stream frame is exactly one message); in a packet, bytes after it are ignored as
 * Go's decoder does. Refusals count in inflateRefused.
 */
export function inflateMessage(bytes: Uint8Array, start: number, end: number, maxBytes: number, exact: boolean): Uint8Array {
  const reader = new MsgpackReader(bytes, start, end);
  let algo = 0;
  let buf: Uint8Array | undefined;
  for (let n = reader.mapHeader('compress'); n > 0; n--) {
    switch (reader.key()) {
      case 'Algo':
        algo = reader.uint('Algo', 0xff);
        break;
      case 'Buf':
        buf = reader.bytes('Buf', reader.remaining);
        break;
      default:
        reader.skip();
    }
  }
  if (exact && reader.position !== end) throw new DecodeFailure('malformed', `${end - reader.position} bytes after the compress message`);
  if (algo !== LZW_ALGO) throw new DecodeFailure('invalid-field', `field 'Algo': cannot decompress unknown algorithm ${algo}`, 'inflateRefused');
  const inflated = lzwDecompress(buf ?? new Uint8Array(0), maxBytes);
  if (!inflated.ok) {
    if (inflated.reason === 'too-large') {
      throw new DecodeFailure('too-many', `the compressed message inflates to more than ${maxBytes} bytes`, 'inflateRefused');
    }
    throw new DecodeFailure('malformed', `LZW: ${inflated.reason === 'truncated' ? 'no end code' : 'invalid code'}`, 'inflateRefused');
  }
  return inflated.bytes;
}
