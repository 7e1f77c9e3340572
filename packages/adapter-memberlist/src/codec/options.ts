import { SERF_VSN, vsnOptionProblems, type Vsn } from './vsn.js';

/** Options of {@link memberlistCodec}; each one left out takes its value from {@link CODEC_DEFAULTS}. */
export interface MemberlistCodecOptions {
  /**
   * Our Vsn, [pmin, pmax, pcur, dmin, dmax, dcur]: default [1, 5, 2, 2, 5, 5], what Serf 0.9
   * advertises (Serf refuses a delegate range without its protocol 5 in it).
   */
  readonly vsn?: Vsn;
  /** Put a CRC-32 in front of every packet we send (memberlist hasCrc, for peers of protocol 5). Default true. */
  readonly crc?: boolean;
  /**
   * LZW-compress what we send, as memberlist's EnableCompression: a packet only when that makes it
   * smaller, every stream message. Default false.
   */
  readonly compress?: boolean;
  /** Bound on the peers whose Vsn the codec remembers (to relay their alives unchanged). Default 8192. */
  readonly maxPeerVersions?: number;
  /** Bound on what one packet may inflate to, all its compress messages together. Default 64 KiB. */
  readonly maxInflatedPacketBytes?: number;
  /** Bound on what one stream message may inflate to (memberlist >= 0.6 caps at 40 MiB). Default 16 MiB. */
  readonly maxInflatedStreamBytes?: number;
}

/** A codec's options with every default filled in ({@link MemberlistCodec.options}). */
export interface ResolvedCodecOptions {
  /** Our Vsn, [pmin, pmax, pcur, dmin, dmax, dcur], sent in our alive and push-pull entry. */
  readonly vsn: Vsn;
  /** Whether every packet we send starts with a CRC-32 header (memberlist hasCrc). */
  readonly crc: boolean;
  /** Whether we LZW-compress what we send: packets when smaller, every stream message. */
  readonly compress: boolean;
  /** Most peers whose Vsn the codec remembers, 0..1,000,000. */
  readonly maxPeerVersions: number;
  /** Most bytes one packet may inflate to, all its compress messages together; 1 KiB..64 MiB. */
  readonly maxInflatedPacketBytes: number;
  /** Most bytes one stream message may inflate to; 1 KiB..1 GiB. */
  readonly maxInflatedStreamBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The codec's defaults: Serf 0.9's Vsn [1, 5, 2, 2, 5, 5], CRC on, compression off, 8192 peers'
 * Vsn remembered, 64 KiB inflated per packet and 16 MiB per stream message.
 */
export const CODEC_DEFAULTS: ResolvedCodecOptions = Object.freeze({
  vsn: SERF_VSN,
  crc: true,
  compress: false,
  maxPeerVersions: 8192,
  maxInflatedPacketBytes: 64 * KiB,
  maxInflatedStreamBytes: 16 * MiB,
});

/** Options with defaults filled in; throws a RangeError listing every problem. */
export function resolveCodecOptions(options: MemberlistCodecOptions | undefined): ResolvedCodecOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError('memberlistCodec options must be an object');
  }
  const given = (options ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const known = new Set(Object.keys(CODEC_DEFAULTS));
  for (const key of Object.keys(given)) if (!known.has(key)) problems.push(`unknown option ${JSON.stringify(key)}`);
  const vsn = given['vsn'] ?? CODEC_DEFAULTS.vsn;
  problems.push(...vsnOptionProblems(vsn));
  const boolean = (name: 'crc' | 'compress'): boolean => {
    const value = given[name] ?? CODEC_DEFAULTS[name];
    if (typeof value !== 'boolean') problems.push(`${name} must be a boolean`);
    return value === true;
  };
  const integer = (name: 'maxPeerVersions' | 'maxInflatedPacketBytes' | 'maxInflatedStreamBytes', min: number, max: number): number => {
    const value = given[name] ?? CODEC_DEFAULTS[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer in ${min}..${max}`);
    }
    return value as number;
  };
  const resolved: ResolvedCodecOptions = {
    vsn: Array.isArray(vsn) ? (Object.freeze([...(vsn as number[])]) as unknown as Vsn) : CODEC_DEFAULTS.vsn,
    crc: boolean('crc'),
    compress: boolean('compress'),
    maxPeerVersions: integer('maxPeerVersions', 0, 1_000_000),
    // A packet is at most 64 KiB; its inflated form must hold at least one message.
    maxInflatedPacketBytes: integer('maxInflatedPacketBytes', 1 * KiB, 64 * MiB),
    maxInflatedStreamBytes: integer('maxInflatedStreamBytes', 1 * KiB, 1024 * MiB),
  };
  if (problems.length > 0) throw new RangeError(`invalid memberlistCodec options: ${problems.join('; ')}`);
  return Object.freeze(resolved);
}
