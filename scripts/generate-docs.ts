/**
 * `npm run docs`: writes the Markdown reference (docs/reference/) generated from the operation
 * registry, replacing what is there, so removed operations leave no stale page behind.
 * test/integration/discovery/reference-docs.test.ts fails when the committed files are stale.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../registry/index.ts';
import { REFERENCE_DIR, renderReferenceDocs } from '../discovery/reference-docs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, REFERENCE_DIR);
mkdirSync(dir, { recursive: true });
const docs = renderReferenceDocs(registry.operations);
for (const file of readdirSync(dir)) if (!docs.has(file)) rmSync(join(dir, file));
for (const [file, text] of docs) writeFileSync(join(dir, file), text);
process.stdout.write(`Wrote ${docs.size} files to ${REFERENCE_DIR}/: ${[...docs.keys()].join(', ')}\n`);
