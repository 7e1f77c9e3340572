import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { erfc, inverseNormalCdf, normalTailPhi, normalTailPhiInverse } from '../src/index.js';
import { relativeError } from './helpers.js';

// Reference values from mpmath at 50 digits (erfc, -log10 ncdf(-y), sqrt(2)·erfinv(2p − 1), and a
// root finder on -log10 ncdf(-y) = phi), rounded to doubles.
const ERFC: ReadonlyArray<readonly [number, number]> = [
  [-3, 1.9999779095030015], [-1, 1.8427007929497148], [-0.3, 1.3286267594591274], [0, 1],
  [0.1, 0.887537083981715], [0.5, 0.4795001221869535], [0.9, 0.20309178757716786],
  [1.0, 0.15729920705028513], [1.3, 0.06599205505934755], [1.5, 0.033894853524689274],
  [1.7, 0.01620954140922544], [1.9, 0.0072095707647425325], [1.99, 0.004888586800383003],
  [2.0, 0.004677734981047266], [2.01, 0.004475150644751763], [2.5, 0.0004069520174449589],
  [3, 2.209049699858544e-5], [4, 1.541725790028002e-8], [5, 1.537459794428035e-12],
  [8, 1.1224297172982926e-29], [12, 1.3562611692059042e-64], [20, 5.395865611607901e-176],
];

const TAIL_PHI: ReadonlyArray<readonly [number, number]> = [
  [-8, 2.7017288495439214e-16], [-3, 0.0005866493137900667], [-1, 0.07502601295781802],
  [-0.5, 0.16023139227784902], [0, 0.3010299956639812], [0.5, 0.5106919892652407],
  [1, 0.7995455414919705], [2, 1.643016080140937], [2.8, 2.5925869427534964],
  [2.83, 2.633128931440048], [2.9, 2.7291318153963524], [3, 2.869699035929369],
  [4, 4.499334907556479], [5, 6.5426456723906545], [5.6, 7.969902850385902],
  [6, 9.005864327476704], [8, 15.206142551017155], [10, 23.118053405486076],
  [20, 88.56009534307559], [37, 299.24218117860994], [38, 315.5397897039625],
  [40, 349.43700645934587], [100, 2173.8715428690343], [1000, 217150.6400419944],
];

const QUANTILES: ReadonlyArray<readonly [number, number]> = [
  [1e-300, -37.0470962993612], [1e-100, -21.273453560965326], [1e-20, -9.262340089798407],
  [1e-8, -5.612001244174789], [0.001, -3.0902323061678136], [0.02425, -1.972961051311885],
  [0.05, -1.6448536269514726], [0.074, -1.4466320671589785], [0.075, -1.439531470938456],
  [0.076, -1.4325027208258116], [0.1, -1.2815515655446004], [0.3, -0.5244005127080408],
  [0.5, 0], [0.7, 0.5244005127080407], [0.925, 1.4395314709384561], [0.975, 1.9599639845400538],
  [0.999, 3.090232306167813], [0.9999999999, 6.361340889697422],
];

const PHI_INVERSE: ReadonlyArray<readonly [number, number]> = [
  [0.01, -1.9997658101835845], [0.1, -0.8215316028830921], [1, 1.2815515655446004],
  [2, 2.326347874040841], [3, 3.0902323061678136], [5, 4.264890793922825],
  [8, 5.612001244174789], [12, 7.034483825301132], [16, 8.222082216130435],
  [40, 13.31092137142517], [300, 37.0470962993612], [400, 42.810227206611344],
  [1000, 67.78568559660262],
];

describe('erfc', () => {
  it('matches 50-digit references to 1e-14 relative over 176 orders of magnitude', () => {
    for (const [x, expected] of ERFC) expect(relativeError(erfc(x), expected), `erfc(${x})`).toBeLessThan(1e-14);
  });

  it('underflows to 0 far out and is NaN for NaN', () => {
    expect(erfc(30)).toBe(0);
    expect(erfc(Number.NaN)).toBeNaN();
  });
});

describe('normalTailPhi (-log10 P(Y > y))', () => {
  it('matches 50-digit references, including far past where P(Y > y) underflows (y ≈ 38)', () => {
    for (const [y, expected] of TAIL_PHI) expect(relativeError(normalTailPhi(y), expected), `y = ${y}`).toBeLessThan(1e-14);
  });

  it('is log10(2) at the mean', () => {
    expect(normalTailPhi(0)).toBe(Math.log10(2));
  });

  it('approaches 0 before the mean and is Infinity only at Infinity', () => {
    expect(normalTailPhi(-40)).toBe(0);
    expect(Number.isFinite(normalTailPhi(1e5))).toBe(true);
    expect(normalTailPhi(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });

  it('is non-decreasing (up to 1e-14 of rounding where erfc switches method)', () => {
    fc.assert(
      fc.property(fc.double({ min: -50, max: 200, noNaN: true }), fc.double({ min: 0, max: 50, noNaN: true }), (y, step) => {
        expect(normalTailPhi(y + step)).toBeGreaterThanOrEqual(normalTailPhi(y) - 1e-14);
      }),
    );
  });
});

describe('inverseNormalCdf (AS241)', () => {
  it('matches 50-digit references to 1e-15 relative from p = 1e-300 to 1 − 1e-10', () => {
    for (const [p, expected] of QUANTILES) {
      const z = inverseNormalCdf(p);
      if (expected === 0) expect(z).toBe(0);
      else expect(relativeError(z, expected), `p = ${p}`).toBeLessThan(1e-15);
    }
  });

  it('is antisymmetric and has the edges of a quantile function', () => {
    expect(inverseNormalCdf(0.975)).toBeCloseTo(-inverseNormalCdf(0.025), 15);
    expect(inverseNormalCdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(inverseNormalCdf(1)).toBe(Number.POSITIVE_INFINITY);
    expect(inverseNormalCdf(-0.1)).toBeNaN();
    expect(inverseNormalCdf(1.1)).toBeNaN();
  });
});

describe('normalTailPhiInverse', () => {
  it('matches 50-digit references, up to phi = 1000 (tail 1e-1000)', () => {
    for (const [phi, expected] of PHI_INVERSE) {
      expect(relativeError(normalTailPhiInverse(phi), expected), `phi = ${phi}`).toBeLessThan(1e-14);
    }
  });

  it('puts threshold 8 about 5.6 standard deviations out (5.612)', () => {
    const z = normalTailPhiInverse(8);
    expect(z).toBeGreaterThan(5.6);
    expect(z).toBeLessThan(5.62);
  });

  it('is the inverse of normalTailPhi', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 2000, noNaN: true }), (phi) => {
        expect(relativeError(normalTailPhi(normalTailPhiInverse(phi)), phi)).toBeLessThan(1e-12);
      }),
    );
  });
});
