/**
 * Standard base64 with padding (Go's base64.StdEncoding), as Serf writes keys in key responses and
 * reads them in key commands. No node:buffer: the adapter runs in browsers and workers too.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    out += b === undefined ? '=' : ALPHABET[(n >> 6) & 63]!;
    out += c === undefined ? '=' : ALPHABET[n & 63]!;
  }
  return out;
}

/**
 * The bytes of padded standard base64, or the index of the first byte that is not valid, as Go's
 * StdEncoding.DecodeString reports it ("illegal base64 data at input byte N").
 */
export function decodeBase64(text: string): Uint8Array | { readonly illegalAt: number } {
  if (text.length % 4 !== 0) return { illegalAt: text.length - (text.length % 4) };
  const out = new Uint8Array((text.length / 4) * 3);
  let length = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const values: number[] = [];
    for (let j = 0; j < 4; j++) {
      const char = text[i + j]!;
      if (char === '=' && last && j >= 2 && (j === 3 || text[i + 3] === '=')) break;
      const value = ALPHABET.indexOf(char);
      if (value < 0) return { illegalAt: i + j };
      values.push(value);
    }
    if (values.length < 2) return { illegalAt: i + values.length };
    const n = (values[0]! << 18) | (values[1]! << 12) | ((values[2] ?? 0) << 6) | (values[3] ?? 0);
    out[length++] = n >> 16;
    if (values.length > 2) out[length++] = (n >> 8) & 0xff;
    if (values.length > 3) out[length++] = n & 0xff;
  }
  return out.slice(0, length);
}
