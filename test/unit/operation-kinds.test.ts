import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS, OPERATION_KIND_RUNNERS, OPERATION_KINDS } from '../../domain/operations/kinds/index.ts';
import { ROOT } from '../helpers/process.ts';

const KINDS_DIR = join(ROOT, 'domain/operations/kinds');

describe('long-running operation kinds (domain/operations/kinds/, one defineKind per file)', () => {
  it('lists every kind file in KINDS, so a kind cannot exist without the runner knowing it', async () => {
    const files = readdirSync(KINDS_DIR).filter((name) => name.endsWith('.ts') && name !== 'index.ts');
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const exported = Object.values(await import(join(KINDS_DIR, file)));
      expect(exported.length, file).toBeGreaterThan(0);
      for (const kind of exported) expect(KINDS, `${file} is not listed in kinds/index.ts`).toContain(kind);
    }
  });

  it('names each kind once (the runner map is keyed by it; the operations.kind CHECK lists it)', () => {
    expect(new Set(OPERATION_KINDS).size).toBe(KINDS.length);
    expect(Object.keys(OPERATION_KIND_RUNNERS)).toHaveLength(KINDS.length);
  });
});
