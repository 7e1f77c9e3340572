// The rules of `pnpm release:check` and `pnpm release:publish` that do not need a registry: what a
// packed manifest may say, the bundle size a README states, the repository a published manifest names.
import { describe, expect, it } from 'vitest';
import { sizeBlock, sizeDrift, statedSize, withSize } from '../release/bundle-size.js';
import { packedManifestProblems, type Packed } from '../release/pack.js';
import { withRepository } from '../release/publish.js';
import { firstTsBlock } from '../release/steps/types.js';
import { binsOf, entrySpecifiers, publicPackages } from '../release/workspace.js';

function packed(name: string, version: string, manifest: Partial<Packed['manifest']>, files: string[] = ['dist/index.js', 'dist/index.d.ts']): Packed {
  return {
    dir: `packages/${name}`,
    name: `@swim/${name}`,
    version,
    tarball: `/tmp/swim-${name}-${version}.tgz`,
    manifest: { name: `@swim/${name}`, version, exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, ...manifest },
    files,
  };
}

describe('packed manifests', () => {
  const core = packed('core', '0.1.0', {});
  it.each([
    ['a caret range its sibling satisfies', { dependencies: { '@swim/core': '^0.1.0' } }, []],
    ['an exact version of its sibling', { dependencies: { '@swim/core': '0.1.0' } }, []],
    ['workspace protocol left in', { dependencies: { '@swim/core': 'workspace:^' } }, ['@swim/runtime: dependencies.@swim/core is still "workspace:^"']],
    ['a range its sibling does not satisfy', { dependencies: { '@swim/core': '^0.2.0' } }, ['@swim/runtime: dependencies.@swim/core is "^0.2.0", which @swim/core 0.1.0 does not satisfy']],
    ['a private sibling', { dependencies: { '@swim/test-support': '0.0.0' } }, ['@swim/runtime: dependencies.@swim/test-support is not a public package (it would not install from a registry)']],
    ['a peer on a sibling in workspace protocol', { peerDependencies: { '@swim/core': 'workspace:*' } }, ['@swim/runtime: peerDependencies.@swim/core is still "workspace:*"']],
    ['third-party ranges are not judged', { dependencies: { ws: '8.23.0', 'prom-client': '^15.1.3' } }, []],
  ] as const)('%s', (_case, manifest, problems) => {
    expect(packedManifestProblems([core, packed('runtime', '0.1.0', manifest)])).toEqual(problems);
  });

  it('finds an exported or bin file missing from the tarball (a "files" that drops dist/)', () => {
    const cli = packed('cli', '0.1.0', { bin: { swim: './dist/main.js' }, exports: { './x': { types: './dist/x.d.ts', default: './dist/x.js' } } }, ['README.md', 'package.json']);
    expect(packedManifestProblems([cli])).toEqual([
      '@swim/cli: ./dist/x.d.ts is not in the tarball (check "files")',
      '@swim/cli: ./dist/x.js is not in the tarball (check "files")',
      '@swim/cli: ./dist/main.js is not in the tarball (check "files")',
    ]);
  });
});

describe('bundle size in a README', () => {
  const size = { minified: 85_812, gzipped: 28_304 };
  const readme = `# x\n\n<!-- bundle-size -->\nold text\n<!-- /bundle-size -->\n\n## More\n`;

  it('is written between the markers and read back to the 0.1 kB', () => {
    const written = withSize(readme, '@swim/core', size)!;
    expect(written).toContain('**85.8 kB**, 28.3 kB gzipped');
    expect(written.endsWith('<!-- /bundle-size -->\n\n## More\n')).toBe(true);
    expect(statedSize(written)).toEqual({ minified: 85_800, gzipped: 28_300 });
  });

  it('is missing when there are no markers, and is not written then', () => {
    expect(statedSize('# x\n')).toBeUndefined();
    expect(statedSize(readme)).toBeUndefined();
    expect(withSize('# x\n', '@swim/core', size)).toBeUndefined();
  });

  it('holds within 10 %, on both figures', () => {
    const stated = statedSize(sizeBlock('@swim/core', size))!;
    expect(sizeDrift(stated, size)).toBeUndefined();
    expect(sizeDrift(stated, { minified: Math.round(size.minified * 1.09), gzipped: size.gzipped })).toBeUndefined();
    expect(sizeDrift(stated, { minified: Math.round(size.minified * 1.12), gzipped: size.gzipped })).toMatch(/^states 85.8 kB/);
    expect(sizeDrift(stated, { minified: size.minified, gzipped: Math.round(size.gzipped * 0.85) })).toMatch(/measured 85.8 kB \(24.1 kB gzipped\)/);
  });
});

describe('the repository a published manifest names', () => {
  it('is the workflow repository, with the package folder, and nothing else changes', () => {
    const before = { name: '@swim/core', version: '0.1.0', files: ['dist'] };
    const after = JSON.parse(withRepository(JSON.stringify(before), 'acme/swim', 'packages/core')) as Record<string, unknown>;
    expect(after).toEqual({ ...before, repository: { type: 'git', url: 'git+https://github.com/acme/swim.git', directory: 'packages/core' } });
  });

  it('refuses what is not OWNER/NAME', () => {
    expect(() => withRepository('{}', 'https://github.com/acme/swim', 'packages/core')).toThrow('is not OWNER/NAME');
  });
});

describe('the workspace as the release check sees it', () => {
  it('lists the ten library packages and the cli as public, nothing private', () => {
    const names = publicPackages().map((p) => p.manifest.name);
    expect(names).toContain('@swim/cli');
    expect(names).toContain('@swim/core');
    expect(names.filter((n) => ['@swim/bench', '@swim/demo', '@swim/test-support', '@swim/scripts'].includes(n))).toEqual([]);
    expect(names).toHaveLength(11);
  });

  it('names entry points and bins from a manifest', () => {
    expect(entrySpecifiers({ name: '@swim/x', version: '1.0.0', exports: { '.': {}, './node': {}, './package.json': './package.json' } })).toEqual(['@swim/x', '@swim/x/node']);
    expect(binsOf({ name: '@swim/cli', version: '1.0.0', bin: './dist/main.js' })).toEqual({ cli: './dist/main.js' });
  });

  it('takes the first ts block of a README as its example', () => {
    expect(firstTsBlock('text\n```sh\nnpm i\n```\n```ts\nconst a = 1;\n```\n```ts\nconst b = 2;\n```\n')).toBe('const a = 1;\n');
    expect(firstTsBlock('no code')).toBeUndefined();
  });
});
