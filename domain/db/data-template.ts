import { PGlite } from '@electric-sql/pglite';
import { constants, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findUp } from '../kernel/find-up.ts';
import { migratePglite, migrationsDigest, readMigrations } from './migrate.ts';

/**
 * Issue 30: PGlite's initdb of a new data directory is most of a first start (3.3 s of 6.1 s).
 * So the build (`npm ci` → postinstall → scripts/build.mjs) makes one migrated data directory, and a
 * first start copies it instead. It holds the schema only: no key, no user, no secret (the
 * encryption key file, its check value and the demo seed are still made per install at first start).
 * It is named by a digest of the migrations and the PGlite version, so a stale one is never used.
 */

const ROOT = dirname(findUp(import.meta.url, 'package.json'));
/** Built, never committed (.build/ is ignored). */
export const TEMPLATES_DIR = join(ROOT, '.build', 'pglite-template');

function pgliteVersion(): string {
  const manifest = join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Where the template for the migrations as they are now lives (it may not exist). */
export function templateDir(migrations = readMigrations(), templatesDir = TEMPLATES_DIR): string {
  return join(templatesDir, `pglite-${pgliteVersion()}-${migrationsDigest(migrations)}`);
}

/**
 * Makes the template unless it exists; returns its directory. Built beside and renamed into place
 * only when fully migrated and closed, so a half-made one is never seen; older ones are removed.
 */
export async function makeTemplate(migrations = readMigrations(), templatesDir = TEMPLATES_DIR): Promise<{ dir: string; made: boolean }> {
  const dir = templateDir(migrations, templatesDir);
  if (existsSync(join(dir, 'PG_VERSION'))) return { dir, made: false };
  mkdirSync(templatesDir, { recursive: true });
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const db = new PGlite(building);
  try {
    await migratePglite(db, migrations);
  } finally {
    await db.close();
  }
  try {
    renameSync(building, dir);
  } catch (error) {
    // Another build made the same one meanwhile: theirs is as good.
    rmSync(building, { recursive: true, force: true });
    if (existsSync(join(dir, 'PG_VERSION'))) return { dir, made: false };
    throw error;
  }
  // Templates of earlier migrations (or PGlite versions) are never used again; others' builds in progress are left alone.
  for (const entry of readdirSync(templatesDir)) {
    const path = join(templatesDir, entry);
    if (path !== dir && !entry.includes('.building-')) rmSync(path, { recursive: true, force: true });
  }
  return { dir, made: true };
}

/**
 * Copies the template into `target` (a database directory that does not exist yet); false when
 * there is no template for these migrations, and the caller creates the database as before.
 * Copied to a sibling and renamed, so an interrupted copy never looks like a database.
 */
export function copyTemplate(target: string, source = templateDir()): boolean {
  if (!existsSync(join(source, 'PG_VERSION'))) return false;
  const copying = `${target}.copying-${process.pid}`;
  rmSync(copying, { recursive: true, force: true });
  // Copy-on-write where the file system can (no bytes copied), a plain copy elsewhere.
  cpSync(source, copying, { recursive: true, mode: constants.COPYFILE_FICLONE });
  renameSync(copying, target);
  return true;
}
