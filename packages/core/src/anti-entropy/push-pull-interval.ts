/** Clusters up to this size push-pull at the base interval (memberlist `pushPullScaleThreshold`). */
const PUSH_PULL_SCALE_THRESHOLD = 32;

/**
 * Interval between periodic push-pull exchanges (memberlist util.go `pushPullScale`, used by
 * `pushPullTrigger`): the base for n ≤ 32, else base × (ceil(log2(n) − log2(32)) + 1), so the
 * cluster-wide rate of full state exchanges grows only logarithmically:
 * 33–64 → 2×, 65–128 → 3×, 129–256 → 4×. A base of 0 (push-pull off) stays 0.
 *
 * @param baseMs `pushPullIntervalMs`.
 * @param n estimated cluster size (memberlist `estNumNodes`).
 */
export function pushPullIntervalMs(baseMs: number, n: number): number {
  if (n <= PUSH_PULL_SCALE_THRESHOLD) return baseMs;
  // Math.log2 is exact at powers of two, as Go's math.Log2 (Frexp-based): n = 64 → 2×, not 3×.
  const multiplier = Math.ceil(Math.log2(n) - Math.log2(PUSH_PULL_SCALE_THRESHOLD)) + 1;
  return baseMs * multiplier;
}
