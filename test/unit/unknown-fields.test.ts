import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findUnknownFields } from '../../pipeline/unknown-fields.ts';
import { findUnstorableText } from '../../pipeline/storable-text.ts';

/** The pipeline's generic checks, on shapes today's operations do not have yet (nesting, unions). */
describe('unknown names', () => {
  const Line = z.object({ account: z.number(), amount: z.number(), memo: z.string().optional() });
  const Entry = z
    .object({
      date: z.string(),
      lines: z.array(Line).min(1),
      meta: z.record(z.string(), z.string()).optional(),
      attachment: z
        .discriminatedUnion('kind', [z.object({ kind: z.literal('url'), url: z.string() }), z.object({ kind: z.literal('id'), id: z.string() })])
        .optional(),
      extra: z.looseObject({ known: z.string().optional() }).optional(),
    })
    .refine(() => true)
    .optional();

  it('finds them at any depth, with the names accepted at that level', () => {
    const found = findUnknownFields(
      Entry,
      {
        date: '2026-01-01',
        lines: [
          { account: 1930, amount: 100 },
          { account: 3001, amount: -100, memmo: 'typo' },
        ],
        attachment: { kind: 'url', url: 'https://x', id: 'no' },
        meta: { anything: 'goes' },
        extra: { free: 'form' },
        dat: 'typo',
      },
      'body',
    );
    expect(found).toEqual([
      { path: 'body.lines.1.memmo', accepted: ['account', 'amount', 'memo'] },
      { path: 'body.attachment.id', accepted: ['kind', 'url'] },
      { path: 'body.dat', accepted: ['date', 'lines', 'meta', 'attachment', 'extra'] },
    ]);
  });

  it('sees through defaults, coercion and preprocessing, and reports nothing on a clean value', () => {
    const Query = z.preprocess((v) => v, z.object({ limit: z.coerce.number().default(50), cursor: z.string().optional() }));
    expect(findUnknownFields(Query, { limit: '5' }, 'query')).toEqual([]);
    expect(findUnknownFields(Query, { limt: '5' }, 'query')).toEqual([{ path: 'query.limt', accepted: ['limit', 'cursor'] }]);
  });
});

describe('text the database cannot store', () => {
  it('names every string or key holding a NUL, at any depth', () => {
    expect(findUnstorableText({ a: 'ok', b: ['x', 'y\u0000'], c: { 'k\u0000': 1, d: '\u0000' } }, 'body')).toEqual(['body.b.1', 'body.c.k\\u0000', 'body.c.d']);
    expect(findUnstorableText({ a: 'tab\tand newline\n are fine' }, 'body')).toEqual([]);
  });
});
