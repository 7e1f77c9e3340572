/**
 * The RPC dialect of msgpack (serf-protocol: go-msgpack with RawToString and WriteExt): strings as
 * str (str8 allowed), []byte as bin, structs as maps keyed by field name (written sorted, as
 * go-msgpack does), integers in their smallest form. Decoding is as lenient as Go's: a string may
 * come as bin and bytes as str, missing keys keep their zero value, unknown keys are ignored.
 */
import { decode, Encoder } from '@msgpack/msgpack';

const encoder = new Encoder({ useBigInt64: true, ignoreUndefined: false });

/** One value in the RPC dialect: Uint8Array → bin, string → str, null → nil, bigint → uint64. */
export function encodeValue(value: unknown): Uint8Array {
  return encoder.encode(value);
}

/** A complete value (framed by the FrameScanner): bin as Uint8Array; an int past 2^53 as bigint. */
export function decodeValue(bytes: Uint8Array): unknown {
  return decode(bytes, { useBigInt64: true });
}

/** A decoded struct: its fields by name, or undefined when the value is not a map (Go's decode fails). */
export function asStruct(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return undefined;
  return value as Record<string, unknown>;
}

/** Go's zero values and conversions: a field of the wrong kind fails the decode (undefined from these). */
export function stringField(struct: Record<string, unknown>, key: string): string | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return undefined;
}

export function bytesField(struct: Record<string, unknown>, key: string): Uint8Array | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return new Uint8Array(0);
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return new Uint8Array(Buffer.from(v, 'utf8'));
  return undefined;
}

export function boolField(struct: Record<string, unknown>, key: string): boolean | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  // go-msgpack decodes a bool from fixint 0 or 1.
  if (v === 0 || v === 1) return v === 1;
  return undefined;
}

/** An unsigned integer (Seq, ID, Stop): a number, or a bigint past 2^53. */
export function uintField(struct: Record<string, unknown>, key: string): number | bigint | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'bigint' && v >= 0n) return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  return undefined;
}

/** A signed integer field (Timeout in ns, Version): a number (a bigint past 2^53 is converted, losing precision as a Duration in ms would anyway). */
export function intField(struct: Record<string, unknown>, key: string): number | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}

export function stringListField(struct: Record<string, unknown>, key: string): string[] | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const item of v) {
    if (typeof item === 'string') out.push(item);
    else if (item instanceof Uint8Array) out.push(Buffer.from(item).toString('utf8'));
    else return undefined;
  }
  return out;
}

/** A Go map[string]string; a map key that is not a string fails, as in Go. */
export function stringMapField(struct: Record<string, unknown>, key: string): Map<string, string> | undefined {
  const v = Object.hasOwn(struct, key) ? struct[key] : undefined;
  if (v === undefined || v === null) return new Map();
  const map = asStruct(v);
  if (map === undefined) return undefined;
  const out = new Map<string, string>();
  for (const [k, item] of Object.entries(map)) {
    if (typeof item === 'string') out.set(k, item);
    else if (item instanceof Uint8Array) out.set(k, Buffer.from(item).toString('utf8'));
    else return undefined;
  }
  return out;
}
