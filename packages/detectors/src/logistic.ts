/**
 * The logistic stand-in for the normal tail that Apache Pekko (and Akka before it) uses in
 * `PhiAccrualFailureDetector`: with y the silence in standard deviations past the mean,
 *
 *   P(Y > y) ≈ 1 / (1 + e^g),  g = y·(1.5976 + 0.070566·y²),  so  phi = log10(1 + e^g).
 *
 * Pekko writes it as e = exp(−g); phi = −log10(e/(1 + e)) past the mean and −log10(1 − 1/(1 + e))
 * before it, the same number computed two ways so that neither branch divides infinities. The form
 * here is the same function with log1p, which stays finite where Pekko's returns Infinity (e
 * underflows, from y ≈ 21.6).
 *
 * It is close to the exact normal tail near the mean (Pekko's source gives a CDF error of 0.00014 at
 * y = ±3.16) but falls off faster far out, so phi grows faster: threshold 8 is reached about 5.2
 * standard deviations out instead of 5.6 (test/logistic.test.ts measures the drift).
 */

/** Pekko's linear coefficient in the logistic exponent g = y·(1.5976 + 0.070566·y²). */
export const LOGISTIC_LINEAR = 1.5976;
/** Pekko's cubic coefficient in the logistic exponent g = y·(1.5976 + 0.070566·y²). */
export const LOGISTIC_CUBIC = 0.070566;

/** Phi under Pekko's logistic approximation of the normal tail, y standard deviations past the mean. */
export function logisticTailPhi(y: number): number {
  const g = y * (LOGISTIC_LINEAR + LOGISTIC_CUBIC * y * y);
  // log10(1 + e^g), without overflow for large g or loss of precision for very negative g.
  if (g > 0) return (g + Math.log1p(Math.exp(-g))) / Math.LN10;
  return Math.log1p(Math.exp(g)) / Math.LN10;
}

/**
 * The inverse of {@link logisticTailPhi} in closed form: phi = log10(1 + e^g) gives
 * g = ln(10^phi − 1), and g = y·(a + b·y²) is a cubic with a single real root (a, b > 0), which
 * the hyperbolic form of Cardano's formula gives without cancellation:
 * y = 2·√(a/3b)·sinh(asinh((3g/2a)·√(3b/a)) / 3).
 */
export function logisticTailPhiInverse(phi: number): number {
  if (Number.isNaN(phi) || phi < 0) return Number.NaN;
  if (phi === 0) return Number.NEGATIVE_INFINITY;
  if (phi === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  const g = phi > 1 ? phi * Math.LN10 + Math.log1p(-Math.pow(10, -phi)) : Math.log(Math.expm1(phi * Math.LN10));
  const a = LOGISTIC_LINEAR;
  const b = LOGISTIC_CUBIC;
  return 2 * Math.sqrt(a / (3 * b)) * Math.sinh(Math.asinh(((3 * g) / (2 * a)) * Math.sqrt((3 * b) / a)) / 3);
}
