import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));

describe('the root entry is browser-safe', () => {
  it('bundles for the browser with esbuild, with no node: imports, no ws and no Buffer', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
      // Workspace packages resolve to their TypeScript sources, as in the tests.
      conditions: ['@swim/source'],
    });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('transport-ws/src/client/ws-transport.ts'))).toBe(true);
    expect(inputs.filter((path) => path.startsWith('node:') || /node_modules\/(ws|@types\/node)\//.test(path) || path.includes('/src/node/'))).toEqual([]);
    const output = result.outputFiles[0]!.text;
    expect(output).not.toMatch(/from\s*["']node:|require\(["']|\bBuffer\b/);
    for (const name of ['connectWsTransport', 'WsTransport', 'leaveOnPageHide', 'leaveOnFreeze', 'WsConnectError']) expect(output).toContain(name);
  });
});
