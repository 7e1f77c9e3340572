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
