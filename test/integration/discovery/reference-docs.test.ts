import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.ts';
import { ERROR_CODES } from '../../../domain/kernel/errors.ts';
import { EVENT_TYPES } from '../../../domain/events/types.ts';
import { REFERENCE_DIR, renderReferenceDocs } from '../../../discovery/reference-docs.ts';
import { responseExample } from '../../../discovery/examples.ts';
import { groupsInUse } from '../../../discovery/groups.ts';
import { ROOT } from '../../helpers/process.ts';

const operations = registry.operations;
const generated = renderReferenceDocs(operations);
const dir = join(ROOT, REFERENCE_DIR);

describe('generated reference docs', () => {
  it('docs/reference/ on disk is exactly what the registry generates (run `npm run docs` after changing an operation)', () => {
    expect(existsSync(dir), `${REFERENCE_DIR}/ is missing: run npm run docs`).toBe(true);
    const onDisk = readdirSync(dir).sort();
    expect(onDisk, 'stale or missing files: run npm run docs').toEqual([...generated.keys()].sort());
    for (const [file, text] of generated) {
      expect(readFileSync(join(dir, file), 'utf8'), `${REFERENCE_DIR}/${file} is out of date: run npm run docs`).toBe(text);
    }
  });

  it('has an index, one page per group, the error codes and the event types', () => {
    expect([...generated.keys()]).toEqual([
      'index.md',
      ...groupsInUse(operations).map((group) => `${group}.md`),
      'errors.md',
      'event-types.md',
      'vat-boxes.md',
    ]);
    const errors = generated.get('errors.md')!;
    for (const code of ERROR_CODES) expect(errors).toContain(`## ${code}\n`);
    const events = generated.get('event-types.md')!;
    for (const type of EVENT_TYPES) expect(events).toContain(`## ${type}\n`);
    const index = generated.get('index.md')!;
    for (const op of operations) expect(index).toContain(`\`/api/v1${op.path}\``);
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s: method, path, scope, flags, parameters and every example as a JSON block', (_id, op) => {
    const page = generated.get(`${op.group}.md`)!;
    const section = page.slice(page.indexOf(`## ${op.summary}\n`)).split(/\n## /)[0]!;
    expect(section).toContain(`\`${op.method} /api/v1${op.path}\``);
    expect(section).toContain('scope' in op.auth ? `| Scope | \`${op.auth.scope}\` |` : '| Scope | public');
    expect(section).toContain(`| Risk | ${op.risk}`);
    expect(section).toContain(`| Idempotent | ${op.idempotent ? 'yes' : 'no'} |`);
    expect(section).toContain(`| Dry run | ${op.dryRun ? 'supported' : 'not supported'}`);
    for (const name of Object.keys(op.input.params?.shape ?? {})) expect(section).toContain(`| \`${name}\` | path | yes |`);
    for (const name of Object.keys(op.input.query?.shape ?? {})) expect(section).toMatch(new RegExp(`\\| \`${name}\` \\| query \\|`));
    if (op.idempotencyKey !== 'none') expect(section).toContain('| `Idempotency-Key` | header |');
    // A multipart upload shows its parts, never a worked example (spec Endpoints 10).
    if (op.examples.body !== undefined && !op.input.file) expect(section).toContain(`\`\`\`json\n${JSON.stringify(op.examples.body, null, 2)}\n\`\`\``);
    const response = responseExample(op);
    if (response) expect(section).toContain(`\`\`\`json\n${JSON.stringify(response, null, 2)}\n\`\`\``);
  });
});
