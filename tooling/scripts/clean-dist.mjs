#!/usr/bin/env node
// Remove the package's dist/ before a build, so files of deleted sources are never published.
// Run from a package directory (its `build` script): `node ../../tooling/scripts/clean-dist.mjs && tsc ...`.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
