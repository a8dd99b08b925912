import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.ts';
import { ROOT } from '../../helpers/process.ts';

/** `createWebhook` → `create-webhook`: an operation's file name (docs/architecture.md). */
const kebab = (id: string): string => id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const OPERATIONS_DIR = join(ROOT, 'registry', 'operations');

describe('one file per operation', () => {
  it.each(registry.operations.map((op) => [op.id, op.group] as const))('%s lives in registry/operations/%s/<its id in kebab case>.ts', (id, group) => {
    const text = readFileSync(join(OPERATIONS_DIR, group, `${kebab(id)}.ts`), 'utf8');
    expect(text).toContain(`id: '${id}'`);
  });

  it('no file declares more than one operation', () => {
    const crowded = readdirSync(OPERATIONS_DIR, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => (readFileSync(join(OPERATIONS_DIR, file), 'utf8').match(/defineOperation\(/g) ?? []).length > 1);
    expect(crowded).toEqual([]);
  });

  it('every file that declares an operation is listed in registry/index.ts (an unlisted one would be served by no surface)', () => {
    const listed = new Set(registry.operations.map((op) => `${op.group}/${kebab(op.id)}.ts`));
    const unlisted = readdirSync(OPERATIONS_DIR, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && readFileSync(join(OPERATIONS_DIR, file), 'utf8').includes('defineOperation('))
      .filter((file) => !listed.has(file));
    expect(unlisted).toEqual([]);
  });
});
