/**
 * The standard normal distribution, as far as phi accrual needs it: the complementary error
 * function, phi of the upper tail (−log10 P(Y > y)) computed in log space so it never underflows,
 * the inverse CDF (Wichura's AS241) and the inverse of the phi-of-tail map.
 *
 * Everything here is plain arithmetic on numbers (no tables beyond AS241's published coefficients),
 * so it behaves the same in Node, browsers and the simulator.
 */

const SQRT_PI = Math.sqrt(Math.PI);
const SQRT_2 = Math.SQRT2;
const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * Where erfc switches from 1 − erf (power series) to the continued fraction. Below it the series
 * is exact to a few ulps and 1 − erf loses at most about one digit (erfc(1.5) ≈ 0.034); above it
 * the continued fraction converges in under a hundred steps. The two agree to a few parts in 1e15
 * at the switch, so phi is non-decreasing up to that rounding.
 */
const SERIES_LIMIT = 1.5;

/**
 * erf(x) for 0 ≤ x < SERIES_LIMIT: (2/√π)·e^(−x²)·Σ 2ⁿx^(2n+1)/(1·3·…·(2n+1)). Every term is
 * positive, so nothing cancels.
 */
function erfSeries(x: number): number {
  const twoXSquared = 2 * x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= twoXSquared / (2 * n + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return (2 / SQRT_PI) * Math.exp(-x * x) * sum;
}

/**
 * erfc(x)·e^(x²) for x ≥ SERIES_LIMIT, from the continued fraction
 * erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))),
 * evaluated with the modified Lentz method.
 */
function scaledErfcFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return 1 / (SQRT_PI * f);
}

/** The complementary error function, erfc(x) = 1 − erf(x), for every finite x. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < SERIES_LIMIT) return 1 - erfSeries(x);
  if (x > 27.3) return 0; // below the smallest double
  return Math.exp(-x * x) * scaledErfcFraction(x);
}

/**
 * Phi of the normal upper tail: −log10 P(Y > y) for a standard normal Y, i.e. the phi of a silence
 * that is y standard deviations past the mean. Continuous, increasing, log10(2) at y = 0, and finite
 * for every finite y (far in the tail it is computed from ln erfc, so it does not jump to Infinity
 * where P(Y > y) itself underflows, near y ≈ 38).
 */
export function normalTailPhi(y: number): number {
  if (Number.isNaN(y)) return Number.NaN;
  if (y === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  const x = y / SQRT_2;
  if (x < 0) {
    // P(Y > y) = 1 − erfc(|x|)/2, close to 1: log1p keeps the small phi accurate.
    return -Math.log1p(-0.5 * erfc(-x)) / Math.LN10;
  }
  if (x < SERIES_LIMIT) return -Math.log10(0.5 * erfc(x));
  // ln P(Y > y) = ln(1/2) − x² + ln(erfc(x)·e^(x²))
  return (x * x + Math.LN2 - Math.log(scaledErfcFraction(x))) / Math.LN10;
}

/** ln of the standard normal density at z. */
function lnDensity(z: number): number {
  return -0.5 * z * z - LN_SQRT_2PI;
}

// Wichura, M. J. (1988), Algorithm AS241: The percentage points of the normal distribution
// (PPND16, about 16 significant digits). Coefficients lowest power first.
const CENTRAL_NUM = [
  3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
  45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727,
];
const CENTRAL_DEN = [
  1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867,
  39307.89580009271061, 28729.085735721942674, 5226.495278852854561,
];
const NEAR_NUM = [
  1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
  1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4,
];
const NEAR_DEN = [
  1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459,
  0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9,
];
const FAR_NUM = [
  6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
  0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5,
  2.01033439929228813265e-7,
];
const FAR_DEN = [
  1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
  7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7,
  2.04426310338993978564e-15,
];

function polynomial(coefficients: readonly number[], x: number): number {
  let value = 0;
  for (let i = coefficients.length - 1; i >= 0; i--) value = value * x + coefficients[i]!;
  return value;
}

/**
 * AS241 for a tail probability given by its natural log (so probabilities far below the smallest
 * double still work): the z > 0 with P(Y > z) = e^lnTail, for lnTail ≤ ln(0.075).
 */
function upperQuantileFromLnTail(lnTail: number): number {
  let r = Math.sqrt(-lnTail);
  if (r <= 5) {
    r -= 1.6;
    return polynomial(NEAR_NUM, r) / polynomial(NEAR_DEN, r);
  }
  r -= 5;
  return polynomial(FAR_NUM, r) / polynomial(FAR_DEN, r);
}

/**
 * The inverse of the standard normal CDF: the z with P(Y ≤ z) = p. Wichura's AS241 (PPND16),
 * accurate to about 1e-16 relative; −Infinity at 0, +Infinity at 1, NaN outside [0, 1].
 */
export function inverseNormalCdf(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(CENTRAL_NUM, r)) / polynomial(CENTRAL_DEN, r);
  }
  const tail = q < 0 ? p : 1 - p;
  const z = upperQuantileFromLnTail(Math.log(tail));
  return q < 0 ? -z : z;
}

/**
 * The inverse of {@link normalTailPhi}: the y (in standard deviations past the mean) at which phi
 * reaches `phi`. The starting point comes from AS241 (taking the tail probability 10^−phi in log
 * form, so any phi works), then Newton steps on normalTailPhi itself make
 * normalTailPhi(normalTailPhiInverse(t)) equal t to rounding. Threshold 8 gives about 5.612.
 */
export function normalTailPhiInverse(phi: number): number {
  if (Number.isNaN(phi) || phi < 0) return Number.NaN;
  if (phi === 0) return Number.NEGATIVE_INFINITY;
  if (phi === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  const lnTail = -phi * Math.LN10;
  let y = lnTail <= Math.log(0.075) ? upperQuantileFromLnTail(lnTail) : -inverseNormalCdf(Math.exp(lnTail));
  for (let step = 0; step < 4; step++) {
    // d phi / dy = density(y) / (P(Y > y)·ln 10); P(Y > y) = 10^−phi(y).
    const current = normalTailPhi(y);
    const slope = Math.exp(lnDensity(y) + current * Math.LN10) / Math.LN10;
    const next = y - (current - phi) / slope;
    if (!Number.isFinite(next)) break;
    const done = Math.abs(next - y) <= 1e-15 * Math.max(1, Math.abs(y));
    y = next;
    if (done) break;
  }
  return y;
}
