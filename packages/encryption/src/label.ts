/**
 * Cluster labels (memberlist label.go): a packet or a stream request of a labelled cluster starts
 * with `[244][length 1..255][label bytes]`. Members with another label, or none, ignore it; the
 * label is also authenticated as additional data when encryption is on (envelope.ts).
 */

/** memberlist hasLabelMsg. */
export const LABEL_HEADER_TYPE = 244;
/** memberlist LabelMaxSize, in UTF-8 bytes. */
export const MAX_LABEL_BYTES = 255;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** What is wrong with `label` as a cluster label, or undefined when it is a valid one. */
export function labelProblem(label: unknown): string | undefined {
  if (typeof label !== 'string') return `label must be a string, got ${typeof label}`;
  const length = encoder.encode(label).length;
  if (length === 0) return 'label must not be empty (leave it out for no label)';
  if (length > MAX_LABEL_BYTES) return `label is ${length} UTF-8 bytes, at most ${MAX_LABEL_BYTES} allowed`;
  return undefined;
}

/** No label: no additional data. Shared (never written to): this runs for every packet. */
const NO_LABEL = new Uint8Array(0);

/** The UTF-8 bytes of a label (the additional data it contributes). */
export function labelBytes(label: string | undefined): Uint8Array {
  return label === undefined ? NO_LABEL : encoder.encode(label);
}

/** `[244][length][label]` (memberlist AddLabelHeaderToPacket); throws RangeError for an invalid label. */
export function labelHeader(label: string): Uint8Array {
  const problem = labelProblem(label);
  if (problem !== undefined) throw new RangeError(problem);
  const bytes = encoder.encode(label);
  const header = new Uint8Array(2 + bytes.length);
  header[0] = LABEL_HEADER_TYPE;
  header[1] = bytes.length;
  header.set(bytes, 2);
  return header;
}

/** What {@link readLabel} found: the label and the bytes after its header, or why the header is refused. */
export type LabelRead =
  | {
      /** The header is absent or well formed. */
      readonly ok: true;
      /** The label, or undefined when the bytes carry no label header. */
      readonly label: string | undefined;
      /** The bytes after the header (all of them when there is none). */
      readonly rest: Uint8Array;
    }
  | {
      /** The header is empty, truncated or not UTF-8. */
      readonly ok: false;
      /** What is wrong with the header, for logs. */
      readonly reason: string;
    };

/**
 * Split a label header off `bytes` (memberlist RemoveLabelHeaderFromPacket). `label` is undefined
 * when the bytes do not start with 244; a header that is empty, truncated or not UTF-8 is refused.
 */
export function readLabel(bytes: Uint8Array): LabelRead {
  if (bytes.length === 0 || bytes[0] !== LABEL_HEADER_TYPE) return { ok: true, label: undefined, rest: bytes };
  if (bytes.length < 2) return { ok: false, reason: 'label header truncated' };
  const size = bytes[1]!;
  if (size < 1) return { ok: false, reason: 'label header cannot be empty when present' };
  if (bytes.length < 2 + size) return { ok: false, reason: 'label header truncated' };
  let label: string;
  try {
    label = decoder.decode(bytes.subarray(2, 2 + size));
  } catch {
    return { ok: false, reason: 'label is not UTF-8' };
  }
  return { ok: true, label, rest: bytes.subarray(2 + size) };
}
