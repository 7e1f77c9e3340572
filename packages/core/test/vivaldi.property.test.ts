import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRng,
  DEFAULT_VIVALDI_CONFIG,
  distanceNanoseconds,
  isValidCoordinate,
  VivaldiClient,
  type Coordinate,
  type VivaldiRejection,
} from '../src/index.js';

const DIMS = DEFAULT_VIVALDI_CONFIG.dimensionality;
const { vivaldiErrorMax: ERROR_MAX, heightMin: HEIGHT_MIN } = DEFAULT_VIVALDI_CONFIG;

/**
 * Mostly the seconds coordinates hold, sometimes up to the plausibility bound: 8 components of at
 * most 3.5 s lie within 10 s of the origin (MAX_COORDINATE_SECONDS).
 */
const component = fc.oneof(
  { weight: 4, arbitrary: fc.double({ min: -0.5, max: 0.5, noNaN: true }) },
  { weight: 1, arbitrary: fc.double({ min: -3.5, max: 3.5, noNaN: true }) },
);
const nonNegative = fc.oneof(
  { weight: 4, arbitrary: fc.double({ min: 0, max: 2, noNaN: true }) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 10, noNaN: true }) },
);
/** Any finite double: hostile peers, overflow. */
const anyFinite = fc.double({ noNaN: true, noDefaultInfinity: true });

/** What a peer may send that we accept: finite, with a non-negative error and height, within 10 s of the origin. */
const plausible: fc.Arbitrary<Coordinate> = fc.record({
  vec: fc.array(component, { minLength: DIMS, maxLength: DIMS }),
  error: nonNegative,
  adjustment: component,
  height: nonNegative,
});

const rtt = fc.oneof(fc.double({ min: 0, max: 0.5, noNaN: true }), fc.double({ min: 0, max: 10, noNaN: true }), fc.constant(0));
const nodeName = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const sample = fc.record({ node: nodeName, other: plausible, rtt });

/** Anything at all, to check the reject rules against an independent reading of Serf's. */
const anyNumber = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0));
const anyCoordinate: fc.Arbitrary<Coordinate> = fc.record({
  vec: fc.oneof(
    { weight: 4, arbitrary: fc.array(component, { minLength: DIMS, maxLength: DIMS }) },
    { weight: 1, arbitrary: fc.array(fc.oneof(component, anyFinite), { minLength: DIMS, maxLength: DIMS }) },
    { weight: 1, arbitrary: fc.array(anyNumber, { maxLength: 10 }) },
  ),
  error: fc.oneof(nonNegative, anyNumber),
  adjustment: fc.oneof(component, anyFinite, anyNumber),
  height: fc.oneof(nonNegative, anyFinite, anyNumber),
});

/** serf client.go checkCoordinate and Update's RTT check, plus our plausibility check. */
function expectedRejection(other: Coordinate, rttSeconds: number): VivaldiRejection | undefined {
  if (other.vec.length !== DIMS) return 'incompatible-dimensions';
  if (![...other.vec, other.error, other.adjustment, other.height].every(Number.isFinite)) return 'invalid-coordinate';
  if (other.error < 0 || other.height < 0) return 'implausible-coordinate';
  if (other.height > 10 || Math.abs(other.adjustment) > 10 || Math.hypot(...other.vec) > 10) return 'implausible-coordinate';
  if (Number.isNaN(rttSeconds) || rttSeconds < 0 || rttSeconds > 10) return 'rtt-out-of-range';
  return undefined;
}

describe('Vivaldi coordinates (property)', () => {
  it('distance is non-negative, and symmetric up to the last nanosecond', () => {
    fc.assert(
      fc.property(plausible, plausible, (a, b) => {
        const ab = distanceNanoseconds(a, b)!;
        const ba = distanceNanoseconds(b, a)!;
        expect(ab).toBeGreaterThanOrEqual(0);
        expect(Number.isInteger(ab)).toBe(true);
        // Serf adds a's height before b's, so the sums can round apart in the last bit, and the
        // truncation to whole nanoseconds can then differ by one.
        expect(Math.abs(ab - ba)).toBeLessThanOrEqual(Math.max(1, Math.abs(ab) * Number.EPSILON * 4));
      }),
    );
  });

  it('update keeps our coordinate finite, the error in (0, vivaldiErrorMax] and the height >= heightMin', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(sample, { minLength: 1, maxLength: 60 }), (seed, samples) => {
        const client = new VivaldiClient({ rng: createRng(seed) });
        for (const { node, other, rtt: r } of samples) {
          const result = client.update(node, other, r);
          expect(result.kind).toBe('updated');
          const c = client.coordinate();
          expect(isValidCoordinate(c)).toBe(true);
          expect(c.error).toBeGreaterThan(0);
          expect(c.error).toBeLessThanOrEqual(ERROR_MAX);
          expect(c.height).toBeGreaterThanOrEqual(HEIGHT_MIN);
          expect(client.distanceTo(other)).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('rejects exactly what Serf rejects (and what no Serf node sends), and a rejection changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ node: nodeName, other: anyCoordinate, rtt: fc.oneof(rtt, anyNumber) }), { maxLength: 40 }), (samples) => {
        const client = new VivaldiClient({ rng: createRng(1) });
        for (const { node, other, rtt: r } of samples) {
          const before = client.coordinate();
          const stats = client.stats();
          const result = client.update(node, other, r);
          const reason = expectedRejection(other, r);
          if (reason === undefined) {
            expect(result.kind).toBe('updated');
          } else {
            expect(result).toEqual({ kind: 'rejected', reason });
            expect(client.coordinate()).toBe(before);
            expect(client.stats()).toEqual(stats);
          }
          expect(isValidCoordinate(client.coordinate())).toBe(true);
        }
      }),
    );
  });

  it('a hostile stream of node names keeps the tracked peers within maxTrackedNodes', () => {
    const maxTrackedNodes = 8;
    fc.assert(
      fc.property(
        fc.array(fc.record({ node: fc.string({ maxLength: 6 }), forget: fc.boolean(), other: plausible, rtt }), { minLength: 1, maxLength: 200 }),
        (samples) => {
          const client = new VivaldiClient({ rng: createRng(1), config: { maxTrackedNodes } });
          const names = new Set<string>();
          for (const { node, forget, other, rtt: r } of samples) {
            client.update(node, other, r);
            names.add(node);
            if (forget) client.forgetNode(node);
            const { trackedNodes, evictedNodes } = client.stats();
            expect(trackedNodes).toBeLessThanOrEqual(maxTrackedNodes);
            expect(evictedNodes).toBeLessThanOrEqual(names.size);
          }
        },
      ),
    );
  });

  it('the same seed and samples give the same coordinates', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(sample, { maxLength: 30 }), (seed, samples) => {
        const a = new VivaldiClient({ rng: createRng(seed) });
        const b = new VivaldiClient({ rng: createRng(seed) });
        for (const { node, other, rtt: r } of samples) expect(a.update(node, other, r)).toEqual(b.update(node, other, r));
      }),
    );
  });
});
