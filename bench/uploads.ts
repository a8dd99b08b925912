/**
 * `npm run bench uploads` (issue 28): eight concurrent document uploads of 20 MiB each to one
 * `cli/serve.ts` process, its resident set read from /proc before, every 50 ms during, and
 * UPLOAD_SETTLE_MS after (default 25 s, as the issue measured); then the eight downloaded at once,
 * each checked byte for byte by its SHA-256, the resident set sampled the same way. Goal: RSS grows
 * by less than 200 MB. Issue 28 measured 299 MB → 1.5 GB, with 1.2 GB still held 25 s later.
 * On PostgreSQL by default; UPLOAD_BENCH_ENGINE=pglite serves from the embedded database, whose
 * engine lives in the server's own process (its one connection takes the uploads one at a time).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../domain/bootstrap.ts';
import { MAX_DOCUMENT_BYTES } from '../domain/documents/content-type.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { PDF } from '../test/helpers/documents.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { listeningPort } from './http/listening-port.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const UPLOADS = 8;
/** The file's bytes: the limit less room for the multipart framing. */
const FILE_BYTES = MAX_DOCUMENT_BYTES - 4096;
const GOAL_GROWTH_MB = 200;
const SETTLE_MS = Number(process.env.UPLOAD_SETTLE_MS ?? 25_000);
const ENGINE = process.env.UPLOAD_BENCH_ENGINE === 'pglite' ? 'pglite' : 'postgres';
const MB = 1000 * 1000;

const rssOf = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Samples the server's RSS every 50 ms while `work` runs: before, the peak, and when `work` is done. */
async function sampled<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; before: number; peak: number; atEnd: number; seconds: number }> {
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const started = Date.now();
  try {
    const result = await work();
    const atEnd = rssOf(pid);
    return { result, before, peak: Math.max(peak, atEnd), atEnd, seconds: (Date.now() - started) / 1000 };
  } finally {
    clearInterval(sampler);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-uploads-'));
const db = ENGINE === 'postgres' ? await createPostgresDatabase() : null;
const env: Record<string, string> = db
  ? { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }
  : { ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
// The tenant goes into the server's own database first (the embedded one: its data directory, closed again before the server opens it).
const services = await createServices(loadConfig({ ...env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), { logger: createLogger('warn') });
const tenant = await makeTenant(services.database.prisma);
await services.database.close();

const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/serve.ts')], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...env,
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_FORMAT: 'json',
    DISPATCHER_TIMER: 'false',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
try {
  const { port } = await listeningPort(child);
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // start-up garbage settles
  const pid = child.pid!;
  console.error(`uploads: server ${pid} (${ENGINE}) on port ${port}; sending ${UPLOADS} uploads`);
  const base = `http://127.0.0.1:${port}/api/v1/companies/${tenant.companyId}/documents`;
  const authorization = `Bearer ${tenant.key}`;
  // Distinct files (a different last byte each), so each upload stores a blob of its own.
  const files = Array.from({ length: UPLOADS }, (_, n) => Buffer.concat([PDF, Buffer.alloc(FILE_BYTES - PDF.length - 1, 0x20), Buffer.from([0x30 + n])]));
  const upload = await sampled(pid, () =>
    Promise.all(
      files.map(async (file, n) => {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), `big-${n}.pdf`);
        const response = await fetch(base, { method: 'POST', headers: { authorization }, body: form });
        const body = (await response.json()) as { data?: { id: string; sha256: string } };
        return { status: response.status, id: body.data?.id, digestMatches: body.data?.sha256 === sha256(file) };
      }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const settled = rssOf(pid);
  const growth = (upload.peak - upload.before) / MB;
  const counts: Record<number, number> = {};
  for (const { status } of upload.result) counts[status] = (counts[status] ?? 0) + 1;
  console.log(
    `\nuploads: ${UPLOADS} concurrent × ${(FILE_BYTES / 1024 / 1024).toFixed(2)} MiB to one server (${ENGINE}): statuses ${JSON.stringify(counts)} in ${upload.seconds.toFixed(1)} s; ` +
      `RSS ${(upload.before / MB).toFixed(0)} MB before, peak ${(upload.peak / MB).toFixed(0)} MB (+${growth.toFixed(0)}), ${(upload.atEnd / MB).toFixed(0)} MB when answered, ` +
      `${(settled / MB).toFixed(0)} MB ${SETTLE_MS / 1000} s later (+${((settled - upload.before) / MB).toFixed(0)}); goal growth < ${GOAL_GROWTH_MB} MB: ${growth < GOAL_GROWTH_MB ? 'met' : 'MISSED'}`,
  );

  const download = await sampled(pid, () =>
    Promise.all(
      upload.result.map(async ({ id }, n) => {
        const response = await fetch(`${base}/${id}/content`, { headers: { authorization } });
        return response.status === 200 && sha256(new Uint8Array(await response.arrayBuffer())) === sha256(files[n] as Buffer);
      }),
    ),
  );
  const downloadGrowth = (download.peak - download.before) / MB;
  const exact = download.result.filter(Boolean).length;
  console.log(
    `downloads: the ${UPLOADS} at once in ${download.seconds.toFixed(1)} s, ${exact} of ${UPLOADS} byte-exact; ` +
      `RSS ${(download.before / MB).toFixed(0)} MB before, peak ${(download.peak / MB).toFixed(0)} MB (+${downloadGrowth.toFixed(0)}); goal growth < ${GOAL_GROWTH_MB} MB: ${downloadGrowth < GOAL_GROWTH_MB ? 'met' : 'MISSED'}`,
  );
  const uploadsOk = Object.keys(counts).every((status) => status === '201') && upload.result.every((r) => r.digestMatches);
  if (growth >= GOAL_GROWTH_MB || downloadGrowth >= GOAL_GROWTH_MB || !uploadsOk || exact < UPLOADS) process.exitCode = 1;
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
