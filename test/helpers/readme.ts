import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './process.ts';

/** Where the README's configuration snippets point; tests put the checkout's real path there. */
export const README_CHECKOUT = '/path/to/accounting-platform';

/**
 * The fenced block after `<!-- <marker> -->` in README.md, exactly as a reader copies it: tests run
 * what the README says, so a README that drifts from the code fails.
 */
export function readmeBlock(marker: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`<!-- ${marker} -->`);
  if (at === -1) throw new Error(`README.md has no <!-- ${marker} --> block`);
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error(`README.md: no fenced block after <!-- ${marker} -->`);
  return block[1] as string;
}

/** A README JSON configuration with the checkout path, key and port of this test run filled in. */
export function readmeConfig(marker: string, fill: { key: string; port?: number }): any {
  let text = readmeBlock(marker).replaceAll(README_CHECKOUT, ROOT.replace(/\/$/, '')).replaceAll('sk_test_…', fill.key);
  if (fill.port !== undefined) text = text.replaceAll('localhost:3000', `localhost:${fill.port}`);
  // `any`: the configuration formats of three clients; each test reads the fields it relies on.
  return JSON.parse(text);
}
