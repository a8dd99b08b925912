import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** PGlite's PostgreSQL compiled to WebAssembly, and the file-system bundle it starts from (share/, lib/). */
export interface PgliteAssets {
  wasmModule: Promise<WebAssembly.Module>;
  fsBundle: Promise<Blob>;
}

/**
 * Starts reading and compiling PGlite's 9 MB WebAssembly module and reading its 6 MB file bundle,
 * both off the main thread (the thread pool and V8's compile threads). `npm start` calls this
 * before it loads the rest of its modules, so they load meanwhile instead of PGlite doing both
 * only once the database is opened (issue 30). The same files PGlite would read itself.
 */
export function preloadPgliteAssets(): PgliteAssets {
  const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const wasmModule = readFile(join(dist, 'pglite.wasm')).then((bytes) => WebAssembly.compile(bytes));
  const fsBundle = readFile(join(dist, 'pglite.data')).then((bytes) => new Blob([bytes]));
  // A start that fails before opening the database never awaits these: not an unhandled rejection
  // (openDatabase still sees the error when it awaits them).
  wasmModule.catch(() => {});
  fsBundle.catch(() => {});
  return { wasmModule, fsBundle };
}
