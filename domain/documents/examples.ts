import type { z } from 'zod';
import { COMPANY_ID, ENTRY_ID } from '../ledger/examples.ts';
import type { Document } from './schemas.ts';

/** A realistic document: OpenAPI, docs and the event catalogue all show this one. */

export const DOCUMENT_ID = '9f3c1a7e-2d6b-4e80-8c4f-5b1e7a3d9c62';
const API_KEY_ID = '5d2e8b41-7a3c-4f96-b0e1-2c9d6a4f8e13';

export const documentExample: z.input<typeof Document> = {
  id: DOCUMENT_ID,
  company_id: COMPANY_ID,
  filename: 'kvitto-clas-ohlson-2026-11-12.pdf',
  description: 'Kvitto kontorsmaterial',
  content_type: 'application/pdf',
  size_bytes: 184_223,
  sha256: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  uploaded_at: '2026-11-12T10:02:15.000Z',
  uploaded_by_api_key_id: API_KEY_ID,
  journal_entry_ids: [],
};

export const attachedDocumentExample: z.input<typeof Document> = { ...documentExample, journal_entry_ids: [ENTRY_ID] };
