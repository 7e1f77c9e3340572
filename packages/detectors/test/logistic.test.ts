import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logisticTailPhi, logisticTailPhiInverse, normalTailPhi, normalTailPhiInverse } from '../src/index.js';
import { pekkoPhi, relativeError } from './helpers.js';

describe("Pekko's logistic approximation of the normal tail", () => {
  it("is Pekko's formula wherever Pekko's is finite", () => {
    for (let y = -10; y <= 14; y += 0.01) {
      const expected = pekkoPhi(y, 0, 1);
      // Far before the mean both are tiny; compare absolutely there.
      expect(Math.abs(logisticTailPhi(y) - expected), `y = ${y}`).toBeLessThan(1e-12 * Math.max(1, expected));
    }
  });

  it("stays finite where Pekko's formula returns Infinity", () => {
    expect(pekkoPhi(22, 0, 1)).toBe(Number.POSITIVE_INFINITY);
    expect(logisticTailPhi(22)).toBeCloseTo((22 * (1.5976 + 0.070566 * 22 * 22)) / Math.LN10, 10);
  });

  it('is log10(2) at the mean, like the exact tail', () => {
    expect(logisticTailPhi(0)).toBeCloseTo(Math.log10(2), 15);
  });

  it('has a closed-form inverse', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1000, noNaN: true }), (phi) => {
        expect(relativeError(logisticTailPhi(logisticTailPhiInverse(phi)), phi)).toBeLessThan(1e-12);
      }),
    );
    expect(logisticTailPhiInverse(Math.log10(2))).toBeCloseTo(0, 12);
  });

  describe('drift from the exact normal tail', () => {
    it('peaks at the 0.00014 CDF error Pekko states, on y in [-3.16, 3.16]', () => {
      let worst = 0;
      for (let y = -3.16; y <= 3.16; y += 0.001) {
        worst = Math.max(worst, Math.abs(10 ** -logisticTailPhi(y) - 10 ** -normalTailPhi(y)));
      }
      expect(worst).toBeGreaterThan(1.35e-4);
      expect(worst).toBeLessThan(1.45e-4);
    });

    it('grows in phi as the tail goes on: 0.04 at 3 sd, 0.24 at 4, 0.76 at 5, 1.78 at 6, 6.04 at 8', () => {
      const drift = (y: number): number => logisticTailPhi(y) - normalTailPhi(y);
      expect(Math.abs(drift(1))).toBeLessThan(1e-3);
      expect(drift(3)).toBeCloseTo(0.0398, 3);
      expect(drift(4)).toBeCloseTo(0.2374, 3);
      expect(drift(5)).toBeCloseTo(0.7573, 3);
      expect(drift(6)).toBeCloseTo(1.7767, 3);
      expect(drift(8)).toBeCloseTo(6.0355, 3);
      for (let y = 3; y < 20; y += 0.5) expect(drift(y + 0.5)).toBeGreaterThan(drift(y));
    });

    it('moves the threshold-8 point from 5.61 to 5.23 standard deviations', () => {
      expect(normalTailPhiInverse(8)).toBeCloseTo(5.612, 3);
      expect(logisticTailPhiInverse(8)).toBeCloseTo(5.226, 3);
      // Below about 2.4 sd the logistic curve is the more patient one, beyond it the less.
      expect(logisticTailPhiInverse(1)).toBeGreaterThan(normalTailPhiInverse(1));
      expect(logisticTailPhiInverse(3)).toBeLessThan(normalTailPhiInverse(3));
    });
  });
});
