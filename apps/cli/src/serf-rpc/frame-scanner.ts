/**
 * Where one msgpack value ends in a byte stream, found without decoding it, so that a request can
 * be bounded before anything is allocated for it. Serf's RPC has no length prefix: requests are
 * consecutive msgpack values (docs/serf-rpc.md), so the only way to know that a value is complete
 * (or too large) is to walk its headers.
 *
 * Why not `@msgpack/msgpack`'s streaming decoder (`Decoder.decodeStream`): it copies the unread
 * bytes into a new buffer and re-decodes the pending value from its first byte at every chunk, so a
 * client that drips a large value one byte per packet costs quadratic time; and it does not tell
 * how many bytes a value took, so a request's size could not be bounded exactly. This scanner is
 * resumable (each byte is looked at once), checks every declared length against the bound before
 * waiting for the bytes, and the package's `decode` then decodes the complete value.
 */

export interface FrameLimits {
  /** Longest value, header bytes included. */
  readonly maxBytes: number;
  /** Deepest nesting of arrays and maps (Serf's requests nest two deep). */
  readonly maxDepth: number;
}

/** A value is complete: it spans bytes [0, end) of the bytes scanned since the last value. */
export type ScanResult = { readonly kind: 'complete'; readonly end: number } | { readonly kind: 'partial' } | { readonly kind: 'refused'; readonly reason: string };

/**
 * Scans one value at a time in a buffer that grows at its end. Call {@link scan} after each
 * append with the whole buffer (its start is the current value's first byte); after a `complete`
 * result, {@link reset} and drop the value's bytes.
 */
export class FrameScanner {
  readonly #limits: FrameLimits;
  /** Bytes of the current value already walked. */
  #pos = 0;
  /** Values still to read in each open array/map (a map counts keys and values), innermost last. */
  readonly #open: number[] = [];
  #started = false;

  constructor(limits: FrameLimits) {
    this.#limits = limits;
  }

  /** Bytes of the current value walked so far (0 between values). */
  get scanned(): number {
    return this.#pos;
  }

  reset(): void {
    this.#pos = 0;
    this.#open.length = 0;
    this.#started = false;
  }

  scan(bytes: Uint8Array, length = bytes.length): ScanResult {
    const { maxBytes, maxDepth } = this.#limits;
    for (;;) {
      if (this.#started && this.#open.length === 0) return { kind: 'complete', end: this.#pos };
      if (this.#pos >= length) return { kind: 'partial' };
      const head = headerOf(bytes, this.#pos, length);
      if (head === undefined) return { kind: 'partial' };
      if ('refused' in head) return { kind: 'refused', reason: head.refused };
      const end = this.#pos + head.headerBytes + head.payloadBytes;
      // Refused on the declared length, before the bytes are waited for or anything is allocated.
      if (end > maxBytes) return { kind: 'refused', reason: `a request larger than ${maxBytes} bytes` };
      // Each element takes at least one byte: a count the bound cannot hold is refused now too.
      if (head.children > 0 && end + head.children > maxBytes) return { kind: 'refused', reason: `a request larger than ${maxBytes} bytes` };
      if (end > length) return { kind: 'partial' };
      this.#pos = end;
      this.#started = true;
      const open = this.#open;
      // This value fills a slot of the innermost open container; its own elements come next.
      if (open.length > 0) open[open.length - 1]!--;
      if (head.children > 0) {
        if (open.length >= maxDepth) return { kind: 'refused', reason: `a request nested deeper than ${maxDepth}` };
        open.push(head.children);
      }
      while (open.length > 0 && open[open.length - 1] === 0) open.pop();
    }
  }
}

type Header = { readonly headerBytes: number; readonly payloadBytes: number; readonly children: number } | { readonly refused: string };

/** The header at `at`: its size, the raw bytes after it, and the values it contains; undefined when its bytes have not all arrived. */
function headerOf(bytes: Uint8Array, at: number, length: number): Header | undefined {
  const b = bytes[at]!;
  const fixed = (headerBytes: number, payloadBytes = 0, children = 0) => ({ headerBytes, payloadBytes, children });
  if (b <= 0x7f || b >= 0xe0) return fixed(1);
  if (b >= 0x80 && b <= 0x8f) return fixed(1, 0, (b & 0x0f) * 2);
  if (b >= 0x90 && b <= 0x9f) return fixed(1, 0, b & 0x0f);
  if (b >= 0xa0 && b <= 0xbf) return fixed(1, b & 0x1f);
  const size = (n: number): number | undefined => {
    if (at + 1 + n > length) return undefined;
    let value = 0;
    for (let i = 1; i <= n; i++) value = value * 256 + bytes[at + i]!;
    return value;
  };
  const sized = (n: number, toPayload: (v: number) => Header): Header | undefined => {
    const v = size(n);
    return v === undefined ? undefined : toPayload(v);
  };
  switch (b) {
    case 0xc0:
    case 0xc2:
    case 0xc3:
      return fixed(1);
    case 0xcc:
    case 0xd0:
      return fixed(2);
    case 0xcd:
    case 0xd1:
      return fixed(3);
    case 0xca:
    case 0xce:
    case 0xd2:
      return fixed(5);
    case 0xcb:
    case 0xcf:
    case 0xd3:
      return fixed(9);
    case 0xc4:
    case 0xd9:
      return sized(1, (v) => fixed(2, v));
    case 0xc5:
    case 0xda:
      return sized(2, (v) => fixed(3, v));
    case 0xc6:
    case 0xdb:
      return sized(4, (v) => fixed(5, v));
    case 0xdc:
      return sized(2, (v) => fixed(3, 0, v));
    case 0xdd:
      return sized(4, (v) => fixed(5, 0, v));
    case 0xde:
      return sized(2, (v) => fixed(3, 0, v * 2));
    case 0xdf:
      return sized(4, (v) => fixed(5, 0, v * 2));
    default:
      // 0xc1 (never used) and the ext family: no Serf RPC request carries an extension.
      return { refused: `msgpack type 0x${b.toString(16)} is not used by Serf's RPC` };
  }
}
