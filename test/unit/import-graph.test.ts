import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

/**
 * The rooms and the arrows between them (docs/architecture.md):
 *   cli, ops → rest | mcp | discovery | dispatcher → http → pipeline → registry → domain
 * and inside domain: business areas → db → kernel. Surfaces are siblings and import none of each
 * other's internals; only cli/ (the entry points) and ops/ (metrics, wired in by cli/) assemble them.
 */
const SURFACES = ['rest', 'mcp', 'discovery', 'dispatcher'];
const ENTRY = ['cli', 'ops'];
/** Hono and its adapters: the HTTP kit's business, never the declarations' or the pipeline's. */
const HONO = /^(hono|@hono\/)/;

interface Import {
  /** The top-level folder a relative import lands in, or the package name of a bare one. */
  layer: string;
  /** The imported path relative to the repository root (relative imports only). */
  target: string | null;
  spec: string;
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => {
    const spec = match[1] as string;
    if (!spec.startsWith('.')) return { layer: spec, target: null, spec };
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
    return { layer: target.split('/')[0] as string, target, spec };
  });
}

/** Every import of the files under `dir` that `forbidden` says is not allowed, as `file → spec`. */
function violations(dir: string, forbidden: (found: Import, file: string) => boolean): string[] {
  return sources(dir).flatMap((file) =>
    importsOf(file)
      .filter((found) => forbidden(found, file))
      .map(({ spec }) => `${file} → ${spec}`),
  );
}

/** The rules: each a room and what it must not import. */
const RULES: Record<string, { dir: string; forbidden: (found: Import, file: string) => boolean }> = {
  ...Object.fromEntries(
    SURFACES.map((surface) => [
      `${surface}/ imports no sibling surface, no entry point and nothing under domain/db/`,
      {
        dir: surface,
        forbidden: ({ layer, target }: Import) =>
          (layer !== surface && SURFACES.includes(layer)) || ENTRY.includes(layer) || (target?.startsWith('domain/db/') ?? false),
      },
    ]),
  ),
  'http/ imports no surface and no entry point': {
    dir: 'http',
    forbidden: ({ layer }) => [...SURFACES, ...ENTRY].includes(layer),
  },
  'pipeline/ imports no Hono, no HTTP kit, no surface': {
    dir: 'pipeline',
    forbidden: ({ layer }) => HONO.test(layer) || ['http', ...SURFACES, ...ENTRY].includes(layer),
  },
  'registry/ is declarations only: no Hono, no pipeline, no HTTP kit, no surface': {
    dir: 'registry',
    forbidden: ({ layer }) => HONO.test(layer) || layer === '@modelcontextprotocol/sdk' || ['pipeline', 'http', ...SURFACES, ...ENTRY].includes(layer),
  },
  'domain/ imports nothing above it, and no transport': {
    dir: 'domain',
    forbidden: ({ layer }) => HONO.test(layer) || ['registry', 'pipeline', 'http', ...SURFACES, ...ENTRY].includes(layer),
  },
  'domain/kernel/ imports nothing of ours outside the kernel (no business area, no database module)': {
    dir: 'domain/kernel',
    forbidden: ({ target }) => target !== null && !target.startsWith('domain/kernel/'),
  },
  'domain/db/ imports no business area': {
    dir: 'domain/db',
    forbidden: ({ target }) => target !== null && !target.startsWith('domain/db/') && !target.startsWith('domain/kernel/'),
  },
};

describe('import graph', () => {
  it.each(Object.keys(RULES))('%s', (rule) => {
    const { dir, forbidden } = RULES[rule] as (typeof RULES)[string];
    expect(violations(dir, forbidden)).toEqual([]);
  });

  it('finds a broken rule (the checker itself sees imports)', () => {
    // Every rule must see something when turned around: a check that finds nothing anywhere is blind.
    expect(violations('rest', ({ layer }) => layer === 'pipeline').length).toBeGreaterThan(0);
    expect(violations('domain/ledger', ({ target }) => target?.startsWith('domain/kernel/') ?? false).length).toBeGreaterThan(0);
    expect(violations('http', ({ layer }) => HONO.test(layer)).length).toBeGreaterThan(0);
  });
});
