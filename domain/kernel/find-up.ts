import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file of the checkout (package.json, prisma/migrations) found by walking up from the calling
 * module, so the same code finds it from the sources (two folders down) and from the compiled
 * bundle in .build/ (one folder down).
 */
export function findUp(moduleUrl: string, relative: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${relative} not found above ${start}`);
  }
}
