/**
 * `npm run bench uploads` (issue 28): eight concurrent document uploads of 20 MiB each to one
 * `cli/serve.ts` process on PostgreSQL, its resident set read from /proc before, every 50 ms during,
 * and UPLOAD_SETTLE_MS after (default 25 s, as the issue measured). Goal: RSS grows by less than
 * 200 MB. Issue 28 measured 299 MB → 1.5 GB, with 1.2 GB still held 25 s later.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../domain/bootstrap.ts';
import { MAX_DOCUMENT_BYTES } from '../domain/documents/content-type.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { PDF } from '../test/helpers/documents.ts';
import { makeTenant } from '../test/helpers/factories.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const UPLOADS = 8;
/** The file's bytes: the limit less room for the multipart framing. */
const FILE_BYTES = MAX_DOCUMENT_BYTES - 4096;
const GOAL_GROWTH_MB = 200;
const SETTLE_MS = Number(process.env.UPLOAD_SETTLE_MS ?? 25_000);
const MB = 1000 * 1000;

const rssOf = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

const db = await createPostgresDatabase();
const env = { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
const services = await createServices(loadConfig({ ...env, LOG_LEVEL: 'warn' }), { logger: createLogger('warn') });
const tenant = await makeTenant(services.database.prisma);
await services.database.close();

const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/serve.ts')], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...env,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-uploads-')),
    PORT: '0',
    LOG_FORMAT: 'json',
    DISPATCHER_TIMER: 'false',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
try {
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    // The start-up line may come on either stream; both are read to their end (a full pipe would stall the server).
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /"port":(\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
    }
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening`)));
  });
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // start-up garbage settles
  const pid = child.pid!;
  console.error(`uploads: server ${pid} on port ${port}; sending ${UPLOADS} uploads`);
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const file = Buffer.concat([PDF, Buffer.alloc(FILE_BYTES - PDF.length, 0x20)]);
  const sending = Date.now();
  const statuses = await Promise.all(
    Array.from({ length: UPLOADS }, async (_, n) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), `big-${n}.pdf`);
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/companies/${tenant.companyId}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}` },
        body: form,
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const atEnd = rssOf(pid);
  const seconds = (Date.now() - sending) / 1000;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  clearInterval(sampler);
  const settled = rssOf(pid);
  const growth = (peak - before) / MB;
  const met = growth < GOAL_GROWTH_MB;
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  console.log(
    `\nuploads: ${UPLOADS} concurrent × ${(FILE_BYTES / 1024 / 1024).toFixed(2)} MiB to one server (PostgreSQL): statuses ${JSON.stringify(counts)} in ${seconds.toFixed(1)} s; ` +
      `RSS ${(before / MB).toFixed(0)} MB before, peak ${(peak / MB).toFixed(0)} MB (+${growth.toFixed(0)}), ${(atEnd / MB).toFixed(0)} MB when answered, ` +
      `${(settled / MB).toFixed(0)} MB ${SETTLE_MS / 1000} s later (+${((settled - before) / MB).toFixed(0)}); goal growth < ${GOAL_GROWTH_MB} MB: ${met ? 'met' : 'MISSED'}`,
  );
  if (!met || Object.keys(counts).some((status) => status !== '201')) process.exitCode = 1;
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await db.drop();
}
