import { text } from 'node:stream/consumers';
import { registry } from '../registry/index.ts';
import { main } from './client/main.ts';

/**
 * The API client (`npx accounting …`, bin/accounting.mjs): one command per registry operation
 * with the `cli` surface, over HTTP only. Administration against the database is cli/admin.ts.
 */
// A reader that stops early (`accounting … | head`) closes the pipe: that is the reader's choice,
// not an error, so the client ends quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

process.exitCode = await main(
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    readStdin: () => text(process.stdin),
    signal: stop.signal,
  },
  registry.operations,
);
