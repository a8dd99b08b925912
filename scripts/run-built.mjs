// `npm start`, `npm run worker`, `npm run mcp`: run an entry point's compiled JavaScript from
// .build/, rebuilding it first when a source file is newer (an edited checkout never runs stale
// code). Usage: node --enable-source-maps scripts/run-built.mjs <serve|worker|mcp> [args…]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, buildIsStale, ENTRIES, OUT_DIR } from './build.mjs';

const [name] = process.argv.splice(2, 1);
if (!name || !(name in ENTRIES)) {
  process.stderr.write(`usage: run-built.mjs <${Object.keys(ENTRIES).join('|')}> [arguments]\n`);
  process.exit(2);
}
if (buildIsStale()) await build();
await import(pathToFileURL(join(OUT_DIR, `${name}.js`)).href);
