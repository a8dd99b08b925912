import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { call } from './http.ts';

/** Journal lines as the API takes them: account number and öre. */
export type LineInput = { account: string; debit?: number; credit?: number; description?: string; objects?: { dimension: number; object: string }[] };

/** A small client for the books over the real HTTP app, for tests that need entries as fixtures. */
export function books(app: Hono<AppEnv>, key: string, companyId: string) {
  const base = `/api/v1/companies/${companyId}`;
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(app, method, base + path, { key, ...(body !== undefined && { body }), headers });
  return {
    send,
    createYear: (start_date: string, end_date?: string) => send('POST', '/fiscal-years', { start_date, ...(end_date && { end_date }) }),
    draft: (date: string, lines: LineInput[], extra: Record<string, unknown> = {}) =>
      send('POST', '/journal-entries', { date, description: `Entry ${date}`, lines, ...extra }),
    commit: (entryId: string, options: { idempotencyKey?: string; dryRun?: boolean } = {}) =>
      send('POST', `/journal-entries/${entryId}/commit${options.dryRun ? '?dry_run=true' : ''}`, undefined, {
        ...(options.idempotencyKey && { 'idempotency-key': options.idempotencyKey }),
      }),
    /** Drafts and commits in two calls; fails the test loudly if either is refused. */
    async book(date: string, lines: LineInput[], extra: Record<string, unknown> = {}) {
      const draft = await send('POST', '/journal-entries', { date, description: `Entry ${date}`, lines, ...extra }, { 'idempotency-key': randomUUID() });
      if (draft.status !== 201) throw new Error(`draft refused: ${draft.text}`);
      const committed = await send('POST', `/journal-entries/${draft.body.data.id}/commit`);
      if (committed.status !== 200) throw new Error(`commit refused: ${committed.text}`);
      return committed.body.data;
    },
  };
}

/** A purchase of office supplies: 400 kr + 25 % VAT paid from the bank. */
export const OFFICE_SUPPLIES: LineInput[] = [
  { account: '6110', debit: 40_000 },
  { account: '2641', debit: 10_000 },
  { account: '1930', credit: 50_000 },
];
