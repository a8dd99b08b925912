#!/usr/bin/env node
// The `accounting` executable (package.json "bin"). It runs the client compiled in .build/ (built
// on install by scripts/build.mjs) when that build is current: no TypeScript transform, so a call
// starts in a fraction of the time. In an edited checkout whose build is older than the sources it
// runs the sources through tsx (a runtime dependency, registered in-process), so it never runs
// stale code and works from a clone (`npx accounting`) and after `npm install -g .`.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIsStale, OUT_DIR } from '../scripts/build.mjs';

if (buildIsStale()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/accounting.ts');
} else {
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(join(OUT_DIR, 'accounting.js')).href);
}
