import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

/**
 * The layers (DESIGN.md §2): rest | mcp | discovery | dispatcher | cli → registry → domain.
 * Surfaces are siblings: none imports another's internals (shared HTTP pieces live in
 * registry/http/); only cli/, the entry points, assembles them. domain/ imports no layer above it.
 * ops/ (metrics) is wired in by cli/ alone, like it: surfaces know only registry/http's interface.
 */
const SURFACES = ['rest', 'mcp', 'discovery', 'dispatcher'] as const;
const ENTRY = ['cli', 'ops'];
const ABOVE_DOMAIN = [...SURFACES, ...ENTRY, 'registry'];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Top-level folder of every relative import of a file. */
function importedLayers(file: string): { layer: string; spec: string }[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => {
    const spec = match[1] as string;
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
    return { layer: target.split('/')[0] as string, spec };
  });
}

describe('import graph', () => {
  it.each(SURFACES)('%s/ imports no sibling surface', (surface) => {
    const offending = sources(surface).flatMap((file) =>
      importedLayers(file)
        .filter(({ layer }) => (layer !== surface && (SURFACES as readonly string[]).includes(layer)) || ENTRY.includes(layer))
        .map(({ spec }) => `${file} → ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('registry/ imports no surface, and domain/ nothing above it', () => {
    const offending = [
      ...sources('registry').flatMap((file) =>
        importedLayers(file)
          .filter(({ layer }) => [...SURFACES, ...ENTRY].includes(layer))
          .map(({ spec }) => `${file} → ${spec}`),
      ),
      ...sources('domain').flatMap((file) =>
        importedLayers(file)
          .filter(({ layer }) => ABOVE_DOMAIN.includes(layer))
          .map(({ spec }) => `${file} → ${spec}`),
      ),
    ];
    expect(offending).toEqual([]);
  });
});
