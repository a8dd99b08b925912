import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A folder of declarations is its own list: every TypeScript module under a folder (recursively),
 * imported, keyed by its path relative to the folder and sorted by it. So adding an operation or a
 * long-running kind is adding one file: no index to keep.
 *
 * The compiled bundle (scripts/build.mjs) replaces each loader — a module whose only statement is
 * `export const FOLDER_MODULES = await importFolder(new URL('./<folder>/', import.meta.url));` — with
 * static imports of the same files, chosen by the same rule, because a bundle has no folder to read.
 */
export type FolderModules = ReadonlyArray<readonly [path: string, module: Readonly<Record<string, unknown>>]>;

export async function importFolder(folderUrl: URL): Promise<FolderModules> {
  const folder = fileURLToPath(folderUrl);
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(folder);
  const keyed = files.map((file) => [relative(folder, file).split(sep).join('/'), file] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(keyed.map(async ([key, file]) => [key, (await import(pathToFileURL(file).href)) as Record<string, unknown>] as const));
}
