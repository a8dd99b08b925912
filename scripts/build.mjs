// Compiles the long-running entry points (`npm start`, `npm run worker`, `npm run mcp`) to plain
// JavaScript in .build/, so a start-up runs no TypeScript transform and loads one module graph
// instead of hundreds of files through a loader hook. Packages stay external (node_modules as
// installed); our code is bundled, split where an entry imports lazily (PDF, SIE, docs).
// Run by `postinstall` and, when a source is newer than the build, by scripts/run-built.mjs.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, '.build');
export const ENTRIES = { serve: 'cli/serve.ts', worker: 'cli/worker.ts', mcp: 'cli/mcp.ts' };
const STAMP = join(OUT_DIR, 'built-at');
// Every folder whose TypeScript ends up in the bundle (package.json is there for its dependencies).
const SOURCE_DIRS = ['cli', 'domain', 'registry', 'pipeline', 'http', 'rest', 'mcp', 'discovery', 'dispatcher', 'ops'];

function newestSource(dir = ROOT, dirs = SOURCE_DIRS) {
  let newest = statSync(join(ROOT, 'package.json')).mtimeMs;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, statSync(child).mtimeMs);
    }
  };
  for (const name of dirs) if (existsSync(join(dir, name))) walk(join(dir, name));
  return newest;
}

/** True when .build/ is missing or older than any source file. */
export function buildIsStale() {
  return !existsSync(STAMP) || statSync(STAMP).mtimeMs < newestSource();
}

export async function build() {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: OUT_DIR,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await build();
