// `npm run build` (and so `npm ci`): the migrated data directory a first `npm start` copies instead
// of running PGlite's initdb (domain/db/data-template.ts). Kept while the migrations are unchanged.
import { makeTemplate } from '../domain/db/data-template.ts';

const started = performance.now();
const { dir, made } = await makeTemplate();
if (made) process.stdout.write(`made the migrated embedded-database template ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
