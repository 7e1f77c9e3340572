/**
 * Standard padded base64 (RFC 4648 §4), as Go's base64.StdEncoding that Serf uses for keys. Written
 * out instead of atob/btoa or Buffer: bytes in and out, the same in Node and browsers, and strict
 * (no whitespace, no URL alphabet, padding required).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Map([...ALPHABET].map((c, i) => [c, i]));
const STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += ALPHABET[a >> 2]!;
    out += ALPHABET[((a & 0x03) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? '=' : ALPHABET[((b & 0x0f) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? '=' : ALPHABET[c & 0x3f]!;
  }
  return out;
}

/** The bytes of `text`, or undefined when it is not standard padded base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!STRICT.test(text)) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n =
      (VALUES.get(text[i]!)! << 18) |
      (VALUES.get(text[i + 1]!)! << 12) |
      ((VALUES.get(text[i + 2]!) ?? 0) << 6) |
      (VALUES.get(text[i + 3]!) ?? 0);
    if (o < out.length) out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 0xff;
    if (o < out.length) out[o++] = n & 0xff;
  }
  return out;
}
