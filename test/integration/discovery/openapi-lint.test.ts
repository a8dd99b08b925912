import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod';
import { registry } from '../../../registry/index.ts';
import { buildOpenApiDocument } from '../../../discovery/openapi.ts';
import type { DescribedOperation } from '../../../discovery/operation-traits.ts';
import { ROOT } from '../../helpers/process.ts';

const run = promisify(execFile);
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');
const CONFIG = join(ROOT, 'discovery', 'redocly.yaml');
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint` on a temp file: its exit code and JSON report. No telemetry, no update check. */
async function lint(document: unknown, name: string): Promise<{ code: number; report: LintReport }> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const env = { PATH: process.env.PATH ?? '', HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', DO_NOT_TRACK: '1', CI: 'true' };
  try {
    const { stdout } = await run(REDOCLY, ['lint', '--config', CONFIG, '--format=json', file], { env, cwd: ROOT });
    return { code: 0, report: JSON.parse(stdout) as LintReport };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    if (!failed.stdout) throw new Error(`redocly did not run: ${failed.stderr}`);
    return { code: failed.code, report: JSON.parse(failed.stdout) as LintReport };
  }
}

const summary = (report: LintReport) => report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
const document = buildOpenApiDocument(registry.operations, { publicBaseUrl: 'https://api.example.test' });
/** openapi.json?examples=all, which /docs renders: the same document with every body's example. */
const full = buildOpenApiDocument(registry.operations, { publicBaseUrl: 'https://api.example.test', examples: 'all' });

describe('OpenAPI document validity', () => {
  it.each([
    ['openapi.json', document],
    ['openapi.json?examples=all', full],
  ])('%s passes redocly lint (recommended, examples checked as errors) with no problem at all', async (name, served) => {
    const { code, report } = await lint(served, name.replace(/\W/g, '-'));
    expect(summary(report)).toEqual([]);
    expect(code).toBe(0);
  });

  it.each([
    ['openapi.json', document],
    ['openapi.json?examples=all', full],
  ])('%s passes @apidevtools/swagger-parser validation', async (_name, served) => {
    await expect(SwaggerParser.validate(structuredClone(served) as never)).resolves.toBeTruthy();
  });

  it('fails the lint when a worked example does not match its schema (the check is live)', async () => {
    // Plain JSON; `any` reaches into it without restating the document's shape.
    const broken: any = structuredClone(document);
    broken.paths['/companies'].get.responses['200'].content['application/json'].example.data.companies[0].livemode = 'yes';
    const { code, report } = await lint(broken, 'broken');
    expect(code).not.toBe(0);
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId}`)).toContain('error no-invalid-media-type-examples');
  });

  it('stays valid for the shapes outside JSON on their own: a 204, a binary representation, a stored file and an upload', async () => {
    const { handler: _handler, ...base } = registry.byId('updateCompany')!;
    const params = z.object({ id: z.uuid() });
    const synthetic: DescribedOperation[] = [
      {
        ...base,
        id: 'deleteThing',
        method: 'DELETE',
        path: '/things/{id}',
        input: { params },
        output: null,
        status: 204,
        sideEffects: ['delete'],
        examples: {},
      },
      {
        ...base,
        id: 'downloadThing',
        method: 'GET',
        path: '/things/{id}/pdf',
        input: { params },
        output: null,
        produces: [
          {
            mediaType: 'application/pdf',
            render: async () => {
              throw new Error('not rendered here');
            },
          },
        ],
        status: 200,
        sideEffects: ['none'],
        dryRun: false,
        idempotencyKey: 'none',
        examples: {},
      },
      registry.byId('downloadDocument')!,
      registry.byId('uploadDocument')!,
    ];
    const { code, report } = await lint(buildOpenApiDocument(synthetic, { publicBaseUrl: 'https://api.example.test' }), 'synthetic');
    expect(summary(report)).toEqual([]);
    expect(code).toBe(0);
  });

  it('silences no lint rule without a comment saying why', () => {
    let explained = false;
    const unexplained: string[] = [];
    for (const line of readFileSync(CONFIG, 'utf8').split('\n')) {
      if (/^\s*#/.test(line)) explained = true;
      else if (/^\s+[\w.-]+:\s*off\s*$/.test(line)) {
        if (!explained) unexplained.push(line.trim());
      } else if (line.trim() !== '') explained = false;
    }
    expect(unexplained).toEqual([]);
  });
});
