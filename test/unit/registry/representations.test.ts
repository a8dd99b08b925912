import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../../registry/build-registry.ts';
import { chooseMediaType, negotiate, negotiateLanguage } from '../../../pipeline/negotiate.ts';
import { registry } from '../../../registry/index.ts';
import type { Operation } from '../../../registry/define-operation.ts';

describe('content negotiation (RFC 9110 §12.5.1)', () => {
  const offers = ['application/json', 'application/pdf'];

  it('gives the default without a preference, the best-rated offer otherwise', () => {
    const cases: [string | undefined, string | null][] = [
      [undefined, 'application/json'],
      ['', 'application/json'],
      ['*/*', 'application/json'],
      ['application/pdf', 'application/pdf'],
      ['application/*', 'application/json'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'],
      ['application/pdf;q=0.9, application/json;q=0.5', 'application/pdf'],
      ['application/pdf;q=0.5, application/json', 'application/json'],
      ['*/*;q=0.1, application/pdf', 'application/pdf'],
      ['APPLICATION/PDF', 'application/pdf'],
      ['application/json;q=0, */*', 'application/pdf'],
      ['text/csv', null],
      ['application/pdf;q=0', null],
      ['application/pdf;q=2', null],
    ];
    for (const [accept, expected] of cases) expect(negotiate(offers, accept), String(accept)).toBe(expected);
  });

  it('compares type and subtype only, so parameters on an offer do not hide it', () => {
    expect(negotiate(['text/plain; charset=cp437'], 'text/plain')).toBe('text/plain; charset=cp437');
    expect(negotiate(['text/plain; charset=cp437'], 'text/*')).toBe('text/plain; charset=cp437');
  });

  it('refuses with NOT_ACCEPTABLE naming what is on offer', () => {
    const op = registry.byId('getTrialBalance')!;
    expect(() => chooseMediaType(op, 'image/png')).toThrow(expect.objectContaining({ code: 'NOT_ACCEPTABLE', validAlternatives: offers }));
  });
});

describe('language negotiation (RFC 9110 §12.5.4)', () => {
  const offers = ['sv', 'en'];

  it('gives the default without a usable preference, the best-rated offer otherwise; en-* chooses en', () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'sv'],
      ['', 'sv'],
      ['*', 'sv'],
      ['en', 'en'],
      ['en-GB', 'en'],
      ['EN-us;q=0.8', 'en'],
      ['sv-SE, en;q=0.9', 'sv'],
      ['en;q=0.5, sv;q=0.6', 'sv'],
      ['de, fr;q=0.9, en;q=0.1', 'en'],
      ['de, fr', 'sv'],
      ['en;q=0, *', 'sv'],
      ['sv;q=0, *;q=0.3', 'en'],
      ['en;q=2, sv;q=0.1', 'sv'],
      ['not a tag!, en', 'en'],
    ];
    for (const [acceptLanguage, expected] of cases) expect(negotiateLanguage(offers, acceptLanguage), String(acceptLanguage)).toBe(expected);
  });

  it('every report PDF is offered in the same languages, Swedish first', () => {
    const languages = registry.operations.flatMap((op) => (op.produces ?? []).filter((r) => r.mediaType === 'application/pdf').map((r) => r.languages));
    expect(languages.length).toBeGreaterThanOrEqual(5);
    for (const offered of languages) expect(offered).toEqual(['sv', 'en']);
  });
});

describe('the registry refuses representations that cannot work', () => {
  const base = registry.byId('getTrialBalance')!;
  const pdf = { mediaType: 'application/pdf', render: base.produces![0]!.render };
  const problems = (op: Partial<Operation>): string => {
    try {
      buildRegistry([{ ...base, ...op } as Operation]);
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('accepts the real ones', () => {
    expect(problems({})).toBe('');
    expect(() => buildRegistry([registry.byId('exportSie')!])).not.toThrow();
  });

  it('refuses binary on writes, JSON or a bad type as a produces entry, a twice-listed type', () => {
    expect(problems({ method: 'POST', sideEffects: ['create'] })).toContain('for reads');
    expect(problems({ produces: [{ ...pdf, mediaType: 'application/json' }] })).toContain('not a produces entry');
    expect(problems({ produces: [{ ...pdf, mediaType: 'pdf' }] })).toContain('is not a media type');
    expect(problems({ produces: [pdf, { ...pdf, mediaType: 'application/pdf; q=1' }] })).toContain('listed twice');
  });

  it('a binary-only operation answers 200, has no handler and is no MCP tool; others need a handler', () => {
    const binaryOnly = { output: null, examples: {}, handler: undefined };
    expect(problems({ ...binaryOnly, surfaces: ['api'] })).toBe('');
    expect(problems({ ...binaryOnly, surfaces: ['api', 'mcp'] })).toContain('not an MCP tool');
    expect(problems({ ...binaryOnly, surfaces: ['api'], handler: base.handler })).toContain('has no handler');
    expect(problems({ ...binaryOnly, surfaces: ['api'], status: 201 })).toContain('answers 200');
    expect(problems({ handler: undefined })).toContain('a handler is required');
    expect(problems({ output: z.object({}), produces: undefined, handler: undefined })).toContain('a handler is required');
  });
});
