// Generates the Prisma client offline. Prisma's CLI insists on a schema-engine binary even though
// `generate` never runs it, and it cannot be downloaded here (DESIGN.md §4), so point the variable
// at any existing file unless the caller supplied a real engine.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
execFileSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
