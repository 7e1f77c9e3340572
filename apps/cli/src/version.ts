import { readFileSync } from 'node:fs';

/**
 * The version of the installed `@swim/cli`, read from its package.json: `../package.json` from
 * both `dist/version.js` (the installed binary) and `src/version.ts` (run from source).
 */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('@swim/cli: package.json has no version');
  return manifest.version;
}
