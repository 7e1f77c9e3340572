/**
 * Go's `math.Log10(x)` is `math.Log(x) * (1 / Ln10)`, where the constant `1/Ln10` is folded at
 * arbitrary precision: the correctly rounded log10(e), which is `Math.LOG10E`. It is exact at
 * powers of ten. (`Math.log(x) / Math.LN10` or `* (1 / Math.LN10)` is not: log10(100) would be
 * 1.9999999999999998, and memberlist's 8 s suspicion at n = 100 would come out as 7.996 s.)
 * Used by memberlist util.go `suspicionTimeout` and `retransmitLimit`.
 */
export function goLog10(x: number): number {
  return Math.log(x) * Math.LOG10E;
}

/** 2^63 as a double: the first value past int64's range (MaxInt64, 2^63 − 1, rounds up to it). */
const TWO_POW_63 = 9_223_372_036_854_775_808;
const NS_PER_SECOND = 1_000_000_000;
const NS_PER_SECOND_BIG = 1_000_000_000n;

/**
 * Go's `time.Duration(x)` for a float64 `x` in nanoseconds: truncated toward zero, as the
 * float-to-int64 conversion does. Past int64's range Go's result is implementation-specific (the
 * spec leaves it open; amd64 gives MinInt64, arm64 saturates): this saturates, as arm64, to −2^63
 * or to 2^63 (the double nearest MaxInt64), and NaN gives 0. Never returns −0.
 * Used by serf coordinate/coordinate.go DistanceTo.
 */
export function goDuration(x: number): number {
  if (Number.isNaN(x)) return 0;
  if (x <= -TWO_POW_63) return -TWO_POW_63;
  if (x >= TWO_POW_63) return TWO_POW_63;
  return Math.trunc(x) + 0;
}

/**
 * Go's `Duration.Seconds()` for a whole number of nanoseconds `ns`: whole seconds plus the
 * remaining nanoseconds / 1e9, each rounded as Go rounds them (not `ns / 1e9`, which can differ
 * in the last bit from 1 s up). Exact integer arithmetic in doubles up to 2^53 ns (104 days),
 * BigInt beyond.
 */
export function goDurationSeconds(ns: number): number {
  if (Math.abs(ns) <= Number.MAX_SAFE_INTEGER) {
    const nsec = ns % NS_PER_SECOND;
    return (ns - nsec) / NS_PER_SECOND + nsec / NS_PER_SECOND;
  }
  const big = BigInt(ns);
  return Number(big / NS_PER_SECOND_BIG) + Number(big % NS_PER_SECOND_BIG) / NS_PER_SECOND;
}
