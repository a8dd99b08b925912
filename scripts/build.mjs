// Compiles the long-running entry points (`npm start`, `npm run worker`, `npm run mcp`) to plain
// JavaScript in .build/, so a start-up runs no TypeScript transform and loads one module graph
// instead of hundreds of files through a loader hook. Packages stay external (node_modules as
// installed); our code is bundled, split where an entry imports lazily (PDF, SIE, docs).
// Run by `postinstall` and, when a source is newer than the build, by scripts/run-built.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, '.build');
export const ENTRIES = { serve: 'cli/serve.ts', worker: 'cli/worker.ts', mcp: 'cli/mcp.ts', accounting: 'cli/accounting.ts' };
// Built beside them, run by a full build only (not before a start): the first start's data directory.
const TEMPLATE_ENTRY = { 'make-template': 'cli/make-template.ts' };
const STAMP = join(OUT_DIR, 'built-at');
// Every folder whose TypeScript ends up in the bundle (package.json is there for its dependencies).
const SOURCE_DIRS = ['cli', 'domain', 'registry', 'pipeline', 'http', 'rest', 'mcp', 'discovery', 'dispatcher', 'ops'];

function newestSource(dir = ROOT, dirs = SOURCE_DIRS) {
  let newest = statSync(join(ROOT, 'package.json')).mtimeMs;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      // A folder's time too: a deleted file changes nothing else (folder loaders list folders).
      if (entry.isDirectory()) {
        newest = Math.max(newest, statSync(child).mtimeMs);
        walk(child);
      } else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, statSync(child).mtimeMs);
    }
  };
  for (const name of dirs) if (existsSync(join(dir, name))) walk(join(dir, name));
  return newest;
}

/** True when .build/ is missing or older than any source file. */
export function buildIsStale() {
  return !existsSync(STAMP) || statSync(STAMP).mtimeMs < newestSource();
}

// A folder loader (domain/kernel/folder-modules.ts) reads its folder at run time; a bundle has no
// folder to read, so here the loader becomes static imports of the same files, by the same rule:
// every .ts file under the folder, recursively, keyed by its relative path, sorted.
const FOLDER_LOADER = /export const FOLDER_MODULES = await importFolder\(new URL\('(\.\/[^']+\/)', import\.meta\.url\)\);/;

function typescriptFiles(folder) {
  const files = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...typescriptFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

const folderModules = {
  name: 'folder-modules',
  setup(builder) {
    builder.onLoad({ filter: /modules\.ts$/ }, (args) => {
      const match = FOLDER_LOADER.exec(readFileSync(args.path, 'utf8'));
      if (!match) return undefined;
      const folder = join(dirname(args.path), match[1]);
      const keyed = typescriptFiles(folder)
        .map((file) => [relative(folder, file).split(sep).join('/'), file])
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const imports = keyed.map(([, file], i) => `import * as m${i} from ${JSON.stringify(file)};`);
      const entries = keyed.map(([key], i) => `[${JSON.stringify(key)}, m${i}]`);
      return { contents: `${imports.join('\n')}\nexport const FOLDER_MODULES = [${entries.join(', ')}];\n`, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
};

export async function build() {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    absWorkingDir: ROOT,
    entryPoints: { ...ENTRIES, ...TEMPLATE_ENTRY },
    outdir: OUT_DIR,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [folderModules],
  });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

/**
 * The migrated data directory a first `npm start` copies instead of PGlite's initdb (issue 30),
 * made when missing for the migrations as they are (domain/db/data-template.ts). In a child
 * process: PGlite's memory is not kept by the build's. A failure is a warning, not a failed build.
 */
export function makeTemplate() {
  const made = spawnSync(process.execPath, [join(OUT_DIR, 'make-template.js')], { cwd: ROOT, stdio: 'inherit' });
  // Only a speed-up: a first start without it runs initdb as before, so the build goes on.
  if (made.status !== 0) process.stderr.write(`warning: the embedded-database template was not made (exit ${made.status}); a first start will run initdb\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build();
  makeTemplate();
}
