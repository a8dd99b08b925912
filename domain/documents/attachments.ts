import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { CHECK_VIOLATION, sqlState } from '../db/errors.ts';
import { documentNotFound, evidenceError, readDocument } from './documents.ts';
import type { Document } from './schemas.ts';
import { entryVisible } from '../ledger/visibility.ts';

/**
 * Documents as evidence (underlag) for journal entries: any number of documents per entry and of
 * entries per document, within one company (composite keys make anything else impossible).
 * Attaching works on drafts and committed entries alike — evidence may arrive after booking —
 * but only a draft lets go of a document again.
 */

interface LockedEntry {
  id: string;
  status: 'draft' | 'committed';
}

/** Locks the entry against a concurrent commit while an attachment to it changes. */
async function lockEntry(ctx: OperationContext, companyId: string, entryId: string): Promise<LockedEntry | null> {
  const [row] = await ctx.db.$queryRaw<LockedEntry[]>`
    SELECT id, status FROM journal_entries e WHERE company_id = ${companyId}::uuid AND id = ${entryId}::uuid AND ${entryVisible} FOR SHARE`;
  return row ?? null;
}

async function lockDocument(ctx: OperationContext, companyId: string, documentId: string): Promise<Document> {
  const [row] = await ctx.db.$queryRaw<{ id: string }[]>`
    SELECT id FROM documents WHERE company_id = ${companyId}::uuid AND id = ${documentId}::uuid FOR KEY SHARE`;
  if (!row) throw documentNotFound();
  return (await readDocument(ctx, companyId, documentId)) as Document;
}

/**
 * Attaches a document to an entry of the same company. Attaching it again is a no-op that
 * answers the document as it is (no second event), so a retried call is harmless.
 */
export async function attachDocument(ctx: OperationContext, companyId: string, documentId: string, entryId: string): Promise<Document> {
  const actor = requireScope(ctx, 'documents:write');
  return withTransaction(ctx, async (tx) => {
    const before = await lockDocument(tx, companyId, documentId);
    if (!(await lockEntry(tx, companyId, entryId))) {
      throw new DomainError('NOT_FOUND', {
        message: 'No such journal entry in this company.',
        details: [{ path: 'body.journal_entry_id', message: 'Use an entry id from listJournalEntries of this company.' }],
      });
    }
    const inserted = await tx.db.$executeRaw`
      INSERT INTO document_attachments (company_id, document_id, journal_entry_id, attached_at, attached_by_api_key_id)
      VALUES (${companyId}::uuid, ${documentId}::uuid, ${entryId}::uuid, ${tx.services.now()}, ${actor.apiKeyId}::uuid)
      ON CONFLICT DO NOTHING`;
    if (inserted === 0) return before;
    const after = (await readDocument(tx, companyId, documentId)) as Document;
    await emitEvent(tx, companyId, 'document.attached', after, { journal_entry_ids: before.journal_entry_ids });
    return after;
  });
}

/** Detaches a document from a draft entry; from a committed one it is refused (the evidence must stay). */
export async function detachDocument(ctx: OperationContext, companyId: string, documentId: string, entryId: string): Promise<void> {
  requireScope(ctx, 'documents:write');
  await withTransaction(ctx, async (tx) => {
    const document = await lockDocument(tx, companyId, documentId);
    const entry = await lockEntry(tx, companyId, entryId);
    if (!entry || !document.journal_entry_ids.includes(entryId)) {
      throw new DomainError('NOT_FOUND', { message: 'This document is not attached to that journal entry.' });
    }
    if (entry.status === 'committed') throw evidenceError([entryId]);
    try {
      await tx.db.$executeRaw`
        DELETE FROM document_attachments
         WHERE company_id = ${companyId}::uuid AND document_id = ${documentId}::uuid AND journal_entry_id = ${entryId}::uuid`;
    } catch (error) {
      if (sqlState(error) === CHECK_VIOLATION) throw evidenceError([entryId]);
      throw error;
    }
  });
}
