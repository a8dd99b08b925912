import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDefinedKind } from '../../domain/operations/define-kind.ts';
import { KINDS, OPERATION_KIND_RUNNERS, OPERATION_KINDS } from '../../domain/operations/kinds.ts';
import { ROOT } from '../helpers/process.ts';

const KINDS_DIR = join(ROOT, 'domain/operations/kinds');

describe('long-running operation kinds (domain/operations/kinds/, one defineKind per file, found by kinds.ts)', () => {
  it('finds every kind file: each declares exactly one kind, and every declared kind is in KINDS and the runner map', async () => {
    const files = readdirSync(KINDS_DIR).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const exported = Object.values(await import(join(KINDS_DIR, file)));
      expect(exported.filter(isDefinedKind), `${file} must export one defineKind`).toHaveLength(exported.length === 1 ? 1 : -1);
      const [kind] = exported.filter(isDefinedKind);
      expect(KINDS).toContain(kind);
      expect(OPERATION_KIND_RUNNERS[kind!.kind]).toBe(kind);
    }
    expect(KINDS).toHaveLength(files.length);
  });

  it('names each kind once, in snake_case (the runner map is keyed by it; it is stored on the operation row)', () => {
    expect(new Set(OPERATION_KINDS).size).toBe(KINDS.length);
    for (const kind of OPERATION_KINDS) expect(kind).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});
