/**
 * The browser bundle size a package README states, between `<!-- bundle-size -->` markers: written
 * by `pnpm release:check --write-sizes`, and checked by every release check against what it measured.
 */

export interface BundleSize {
  /** Minified bundle, bytes. */
  readonly minified: number;
  /** The same, gzipped (level 9), bytes. */
  readonly gzipped: number;
}

const BLOCK = /<!-- bundle-size -->\n([\s\S]*?)\n<!-- \/bundle-size -->/;

/** A README may drift this far from the measured size before the check fails (code changes move it). */
export const SIZE_TOLERANCE = 0.1;

export function kB(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

export function sizeBlock(entry: string, size: BundleSize): string {
  return (
    `<!-- bundle-size -->\n` +
    `Bundled for browsers (esbuild, \`platform: 'browser'\`, minified, everything \`${entry}\` exports): **${kB(size.minified)}**, ` +
    `${kB(size.gzipped)} gzipped. Measured by \`pnpm release:check\`, which fails when this figure is more than ${SIZE_TOLERANCE * 100} % off.\n` +
    `<!-- /bundle-size -->`
  );
}

/** The sizes a README states, or undefined when it has no bundle-size block. */
export function statedSize(readme: string): BundleSize | undefined {
  const block = BLOCK.exec(readme)?.[1];
  if (block === undefined) return undefined;
  const figures = [...block.matchAll(/([\d.]+) kB/g)].map((m) => Math.round(Number(m[1]) * 1000));
  if (figures.length < 2 || figures.some((n) => !Number.isFinite(n))) return undefined;
  return { minified: figures[0]!, gzipped: figures[1]! };
}

/** The README with its bundle-size block replaced, or undefined when it has none to replace. */
export function withSize(readme: string, entry: string, size: BundleSize): string | undefined {
  if (!BLOCK.test(readme)) return undefined;
  return readme.replace(BLOCK, sizeBlock(entry, size));
}

/** Why a stated size no longer holds, or undefined if it does. */
export function sizeDrift(stated: BundleSize, measured: BundleSize): string | undefined {
  const off = (a: number, b: number) => Math.abs(a - b) / b;
  if (off(stated.minified, measured.minified) <= SIZE_TOLERANCE && off(stated.gzipped, measured.gzipped) <= SIZE_TOLERANCE) return undefined;
  return `states ${kB(stated.minified)} (${kB(stated.gzipped)} gzipped), measured ${kB(measured.minified)} (${kB(measured.gzipped)} gzipped)`;
}
