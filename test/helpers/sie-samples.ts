import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './process.ts';

/**
 * The real SIE files of `../shared/sie-samples` (beside the checkout, not in it): SIE_SAMPLES_DIR,
 * else the nearest `shared/sie-samples` above the checkout; null when neither exists (a clone
 * elsewhere), and then the tests that import them are skipped, saying so.
 */
function findSamples(): string | null {
  if (process.env.SIE_SAMPLES_DIR) return process.env.SIE_SAMPLES_DIR;
  for (let dir = dirname(ROOT); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'sie-samples');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

export const SIE_SAMPLES_DIR = findSamples();
if (!SIE_SAMPLES_DIR) console.warn('SIE sample tests skipped: no shared/sie-samples above the checkout (set SIE_SAMPLES_DIR).');
