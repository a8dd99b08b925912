import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { EXPECTED_WRAPPED_HEADERS, expectHeaders } from '../../helpers/headers.ts';
import { OFFICE_SUPPLIES, books } from '../../helpers/ledger.ts';
import { HEIC, JPEG, PDF, PNG, REFUSED, TIFF, XML_INVOICE, blobOf, download, send, streamedUpload, uploadFile } from '../../helpers/documents.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { eventEnvelopeSchemaFor, type EventType } from '../../../domain/events/types.ts';
import { sqlState } from '../../../domain/db/errors.ts';
import { DOCUMENT_CONTENT_TYPES, MAX_DOCUMENT_BYTES } from '../../../domain/documents/content-type.ts';
import { STORED_CHUNK_BYTES } from '../../../domain/db/chunks.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');
/** Uploads past SPOOL_MEMORY_BYTES wait in temporary directories named so; none may outlive its request. */
const spooledFiles = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('upload-'));
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
/** A PDF of exactly `size` bytes: the header file-type reads, then padding. */
const pdfOfSize = (size: number): Buffer => Buffer.concat([PDF, Buffer.alloc(size - PDF.length, 0x20)]);

describe.each(DB_TARGETS)('documents through HTTP (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let other: Tenant;
  let b: ReturnType<typeof books>;
  const docs = (path = '') => `/api/v1/companies/${tenant.companyId}/documents${path}`;
  /** A blob's chunk rows in order: their seq and length. */
  const chunkRows = (companyId: string, digest: string) =>
    t.services.database.prisma.$queryRaw<{ seq: number; bytes: number }[]>`
      SELECT seq, octet_length(data) AS bytes FROM document_blob_chunks
       WHERE company_id = ${companyId}::uuid AND sha256 = ${digest} ORDER BY seq`;
  const allChunks = async (): Promise<number> => t.services.database.prisma.documentBlobChunk.count();

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    other = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
  });
  afterAll(async () => t?.close());

  describe('upload, get, download', () => {
    it('gives back the same bytes, typed by content, with exact headers and no envelope', async () => {
      const uploaded = await uploadFile(app, tenant.key, tenant.companyId, PNG, { filename: 'kvitto.png', type: 'text/plain', description: 'Parkering' });
      expect(uploaded.status, uploaded.text).toBe(201);
      const document = uploaded.body.data;
      expect(document).toMatchObject({
        company_id: tenant.companyId,
        filename: 'kvitto.png',
        description: 'Parkering',
        content_type: 'image/png',
        size_bytes: PNG.length,
        sha256: sha256(PNG),
        uploaded_at: NOW.toISOString(),
        uploaded_by_api_key_id: tenant.apiKeyId,
        journal_entry_ids: [],
      });
      expect(uploaded.body.meta.audit).toMatchObject({ action: 'uploadDocument', target: { type: 'document', id: document.id } });

      const got = await call(app, 'GET', docs(`/${document.id}`), { key: tenant.key });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(document);

      const file = await download(app, tenant.key, tenant.companyId, document.id);
      expect(file.status).toBe(200);
      expect(sha256(file.bytes)).toBe(document.sha256);
      expect(file.bytes.equals(PNG)).toBe(true);
      expect(file.headers.get('content-type')).toBe('image/png');
      expect(file.headers.get('content-length')).toBe(String(PNG.length));
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="kvitto.png"; filename*=UTF-8''kvitto.png`);
      expect(file.headers.get('etag')).toBe(`"${document.sha256}"`);
      expect(file.headers.get('cache-control')).toBe('private, no-cache');
      expectHeaders(file.headers, EXPECTED_WRAPPED_HEADERS);

      const again = await download(app, tenant.key, tenant.companyId, document.id, { 'if-none-match': `"${document.sha256}"` });
      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.headers.get('etag')).toBe(`"${document.sha256}"`);
      const changed = await download(app, tenant.key, tenant.companyId, document.id, { 'if-none-match': `"${'0'.repeat(64)}"` });
      expect(changed.status).toBe(200);
    });

    it.each([
      ['PDF', PDF, 'application/pdf', 'pdf'],
      ['JPEG', JPEG, 'image/jpeg', 'jpg'],
      ['HEIC', HEIC, 'image/heic', 'heic'],
      ['TIFF', TIFF, 'image/tiff', 'tif'],
      ['XML', XML_INVOICE, 'application/xml', 'xml'],
    ])('accepts %s by its content whatever the name and declared type say', async (_name, bytes, type, extension) => {
      const uploaded = await uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: '..', type: 'image/gif' });
      expect(uploaded.status, uploaded.text).toBe(201);
      expect(uploaded.body.data).toMatchObject({ content_type: type, filename: `document.${extension}` });
      const file = await download(app, tenant.key, tenant.companyId, uploaded.body.data.id);
      expect(file.headers.get('content-type')).toBe(type);
      expect(file.bytes.equals(bytes)).toBe(true);
    });

    it.each(Object.entries(REFUSED))('refuses %s with 415 naming the accepted types', async (name, bytes) => {
      const refused = await uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: `x.pdf`, type: 'application/pdf' });
      expect(refused.status, name).toBe(415);
      expect(refused.body.error).toMatchObject({ code: 'UNSUPPORTED_FILE_TYPE', valid_alternatives: [...DOCUMENT_CONTENT_TYPES] });
    });

    it('keeps a display name only: no path, no control characters, the UTF-8 name intact', async () => {
      const traversal = await uploadFile(app, tenant.key, tenant.companyId, PDF, { filename: '../../../etc/passwd.pdf' });
      expect(traversal.status, traversal.text).toBe(201);
      expect(traversal.body.data.filename).toBe('passwd.pdf');
      const windows = await uploadFile(app, tenant.key, tenant.companyId, PDF, { filename: '..\\..\\kvitto\u202e.pdf' });
      expect(windows.body.data.filename).toBe('kvitto.pdf');
      const swedish = await uploadFile(app, tenant.key, tenant.companyId, PDF, { filename: 'kvitto åäö.pdf' });
      expect(swedish.body.data.filename).toBe('kvitto åäö.pdf');
      const file = await download(app, tenant.key, tenant.companyId, swedish.body.data.id);
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="kvitto ___.pdf"; filename*=UTF-8''kvitto%20%C3%A5%C3%A4%C3%B6.pdf`);
    });

    it('refuses an empty file, a missing file, two files, a text part as the file, unknown fields and JSON', async () => {
      const empty = await uploadFile(app, tenant.key, tenant.companyId, Buffer.alloc(0));
      expect(empty.status).toBe(400);
      expect(empty.body.error.details).toEqual([{ path: 'body.file', message: 'The file is empty.' }]);

      const onlyDescription = new FormData();
      onlyDescription.append('description', 'no file');
      const missing = await send(app, tenant.key, docs(), onlyDescription);
      expect(missing.status).toBe(400);
      expect(missing.body.error.details[0].path).toBe('body.file');

      const two = new FormData();
      two.append('file', blobOf(PDF), 'a.pdf');
      two.append('file', blobOf(PNG), 'b.png');
      const twice = await send(app, tenant.key, docs(), two);
      expect(twice.status).toBe(400);
      expect(twice.body.error.message).toMatch(/exactly one file/);

      const otherName = new FormData();
      otherName.append('file', blobOf(PDF), 'a.pdf');
      otherName.append('attachment', blobOf(PNG), 'b.png');
      expect((await send(app, tenant.key, docs(), otherName)).status).toBe(400);

      const asText = new FormData();
      asText.append('file', 'not a file');
      const text = await send(app, tenant.key, docs(), asText);
      expect(text.status).toBe(400);
      expect(text.body.error.details[0].path).toBe('body.file');

      const unknown = new FormData();
      unknown.append('file', blobOf(PDF), 'a.pdf');
      unknown.append('amount', '125');
      const extra = await send(app, tenant.key, docs(), unknown);
      expect(extra.status).toBe(400);
      expect(extra.body.error.message).toContain('amount');

      const json = await call(app, 'POST', docs(), { key: tenant.key, body: { file: PDF.toString('base64') } });
      expect(json.status).toBe(415);
      expect(json.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', valid_alternatives: ['multipart/form-data'] });

      const malformed = await call(app, 'POST', docs(), {
        key: tenant.key,
        body: '--x\r\nnot a part',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expect(malformed.status).toBe(400);
      const noBoundary = await call(app, 'POST', docs(), { key: tenant.key, body: 'x', headers: { 'content-type': 'multipart/form-data; charset=utf-8' } });
      expect(noBoundary.status).toBe(400);
    });

    it('takes a file of exactly 20 MiB and refuses one byte more with 413', async () => {
      const largest = await uploadFile(app, tenant.key, tenant.companyId, pdfOfSize(MAX_DOCUMENT_BYTES));
      expect(largest.status, largest.text).toBe(201);
      expect(largest.body.data.size_bytes).toBe(MAX_DOCUMENT_BYTES);
      expect(spooledFiles()).toEqual([]);
      const tooLarge = await uploadFile(app, tenant.key, tenant.companyId, pdfOfSize(MAX_DOCUMENT_BYTES + 1));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'The file is larger than 20 MiB.' });
      expect(tooLarge.body.error.details).toEqual([{ path: 'body.file', message: `At most 20 MiB (${MAX_DOCUMENT_BYTES} bytes).` }]);
    }, 60_000);

    it('stops reading an oversized upload at the limit: a streamed 25 MiB body is refused after about 20 MiB', async () => {
      const upload = streamedUpload(25 * 1024 * 1024);
      const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
      const response = await app.request(
        docs(),
        // `duplex` is how fetch sends a streamed body; the DOM types do not list it yet.
        {
          method: 'POST',
          body: upload.stream,
          duplex: 'half',
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': upload.contentType },
        } as RequestInit,
        env as never,
      );
      expect(response.status).toBe(413);
      expect((await response.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(upload.pulled()).toBeGreaterThan(MAX_DOCUMENT_BYTES);
      // Read up to the limit plus the chunks in flight, never the remaining 5 MiB.
      expect(upload.pulled()).toBeLessThan(MAX_DOCUMENT_BYTES + 512 * 1024);
      // What was spooled to disk on the way is gone.
      expect(spooledFiles()).toEqual([]);
    });

    it('refuses a declared Content-Length past the limit before reading the body', async () => {
      const upload = streamedUpload(25 * 1024 * 1024);
      const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
      const response = await app.request(
        docs(),
        {
          method: 'POST',
          body: upload.stream,
          duplex: 'half',
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': upload.contentType, 'content-length': String(25 * 1024 * 1024 + 300) },
        } as RequestInit,
        env as never,
      );
      expect(response.status).toBe(413);
      // At most what the stream queued on its own before anyone read it.
      expect(upload.pulled()).toBeLessThan(256 * 1024);
    });
  });

  describe('storage', () => {
    it('stores the bytes of a file uploaded twice once (a row count proves it) and frees them with the last document', async () => {
      const db = t.services.database.prisma;
      const bytes = Buffer.concat([PDF, Buffer.from(`unique ${randomUUID()}`)]);
      const first = await uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: 'a.pdf' });
      const second = await uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: 'b.pdf' });
      expect(second.body.data.id).not.toBe(first.body.data.id);
      expect(second.body.data.sha256).toBe(first.body.data.sha256);
      const blobs = () => db.documentBlob.count({ where: { companyId: tenant.companyId, sha256: sha256(bytes) } });
      expect(await db.document.count({ where: { companyId: tenant.companyId, sha256: sha256(bytes) } })).toBe(2);
      expect(await blobs()).toBe(1);
      expect(await chunkRows(tenant.companyId, sha256(bytes))).toHaveLength(1);
      // Another company's copy is its own, chunks included.
      const theirs = await uploadFile(app, other.key, other.companyId, bytes);
      expect(theirs.status).toBe(201);
      expect(await db.documentBlob.count({ where: { sha256: sha256(bytes) } })).toBe(2);
      expect(await chunkRows(other.companyId, sha256(bytes))).toHaveLength(1);

      expect((await call(app, 'DELETE', docs(`/${first.body.data.id}`), { key: tenant.key })).status).toBe(204);
      expect(await blobs()).toBe(1);
      expect((await download(app, tenant.key, tenant.companyId, second.body.data.id)).bytes.equals(bytes)).toBe(true);
      expect((await call(app, 'DELETE', docs(`/${second.body.data.id}`), { key: tenant.key })).status).toBe(204);
      expect(await blobs()).toBe(0);
      expect(await chunkRows(tenant.companyId, sha256(bytes))).toEqual([]);
      expect(await db.documentBlob.count({ where: { companyId: other.companyId, sha256: sha256(bytes) } })).toBe(1);
      expect((await download(app, other.key, other.companyId, theirs.body.data.id)).bytes.equals(bytes)).toBe(true);
    });

    it('stores a file of many chunks in order and gives it back byte for byte, STORED_CHUNK_BYTES at most per row', async () => {
      // 5.3 chunks of varied bytes, past the spool's memory (so read back from its temporary file).
      const size = 5 * STORED_CHUNK_BYTES + 77_777;
      const bytes = Buffer.concat([PDF, randomBytes(size - PDF.length)]);
      const uploaded = await uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: 'scan.pdf' });
      expect(uploaded.status, uploaded.text).toBe(201);
      expect(uploaded.body.data).toMatchObject({ size_bytes: size, sha256: sha256(bytes), content_type: 'application/pdf' });
      expect(spooledFiles()).toEqual([]);
      const rows = await chunkRows(tenant.companyId, sha256(bytes));
      expect(rows.map((row) => row.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(rows.map((row) => row.bytes)).toEqual([...Array(5).fill(STORED_CHUNK_BYTES), 77_777]);

      const file = await download(app, tenant.key, tenant.companyId, uploaded.body.data.id);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-length')).toBe(String(size));
      expect(sha256(file.bytes)).toBe(sha256(bytes));
      expect(file.bytes.equals(bytes)).toBe(true);
    });

    it('two uploads of the same new bytes at once store them once: the second waits for the first and writes no chunk', async () => {
      const bytes = Buffer.concat([PDF, randomBytes(2 * STORED_CHUNK_BYTES)]);
      const [first, second] = await Promise.all([
        uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: 'a.pdf' }),
        uploadFile(app, tenant.key, tenant.companyId, bytes, { filename: 'b.pdf' }),
      ]);
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.body.data.id).not.toBe(second.body.data.id);
      expect(await t.services.database.prisma.documentBlob.count({ where: { companyId: tenant.companyId, sha256: sha256(bytes) } })).toBe(1);
      expect((await chunkRows(tenant.companyId, sha256(bytes))).map((row) => row.seq)).toEqual([0, 1, 2]);
      expect((await download(app, tenant.key, tenant.companyId, second.body.data.id)).bytes.equals(bytes)).toBe(true);
    });

    it('a refused upload — too large, or of a refused type — leaves no blob and no chunk', async () => {
      const before = await allChunks();
      const tooLarge = await uploadFile(app, tenant.key, tenant.companyId, pdfOfSize(MAX_DOCUMENT_BYTES + 1));
      expect(tooLarge.status).toBe(413);
      const gif = Buffer.concat([REFUSED.gif!, randomBytes(3 * STORED_CHUNK_BYTES)]);
      const refusedType = await uploadFile(app, tenant.key, tenant.companyId, gif);
      expect(refusedType.status).toBe(415);
      expect(await allChunks()).toBe(before);
      expect(await t.services.database.prisma.documentBlob.count({ where: { sha256: { in: [sha256(gif), sha256(pdfOfSize(MAX_DOCUMENT_BYTES + 1))] } } })).toBe(
        0,
      );
      expect(spooledFiles()).toEqual([]);
    }, 60_000);

    it('the database keeps a blob whole and its bytes unchanged: complete at commit, chunks never updated (23514)', async () => {
      const db = t.services.database.prisma;
      // A blob whose chunks do not add up to its size is refused when its transaction commits.
      const missing = db.$executeRaw`INSERT INTO document_blobs (company_id, sha256, size_bytes, content_type)
        VALUES (${tenant.companyId}::uuid, ${'0'.repeat(64)}, 1, 'application/pdf')`;
      await expect(missing).rejects.toSatisfy((error: unknown) => sqlState(error) === '23514');
      const bytes = Buffer.concat([PDF, randomBytes(2 * STORED_CHUNK_BYTES)]);
      const uploaded = await uploadFile(app, tenant.key, tenant.companyId, bytes);
      const digest = uploaded.body.data.sha256;
      // A chunk added to a stored blob, or one with a gap, breaks the sum or the sequence.
      const extra = db.$executeRaw`INSERT INTO document_blob_chunks (company_id, sha256, seq, data)
        VALUES (${tenant.companyId}::uuid, ${digest}, 9, decode('00', 'hex'))`;
      await expect(extra).rejects.toSatisfy((error: unknown) => sqlState(error) === '23514');
      const change = db.$executeRaw`UPDATE document_blobs SET content_type = 'image/png'
        WHERE company_id = ${tenant.companyId}::uuid AND sha256 = ${digest}`;
      await expect(change).rejects.toSatisfy((error: unknown) => sqlState(error) === '23514');
      const rewrite = db.$executeRaw`UPDATE document_blob_chunks SET data = decode('00', 'hex')
        WHERE company_id = ${tenant.companyId}::uuid AND sha256 = ${digest} AND seq = 1`;
      await expect(rewrite).rejects.toSatisfy((error: unknown) => sqlState(error) === '23514');
      const cut = db.$executeRaw`DELETE FROM document_blob_chunks WHERE company_id = ${tenant.companyId}::uuid AND sha256 = ${digest} AND seq = 2`;
      await expect(cut).rejects.toSatisfy((error: unknown) => sqlState(error) === '23514');
      const move = db.$executeRaw`UPDATE documents SET sha256 = ${'0'.repeat(64)} WHERE id = ${uploaded.body.data.id}::uuid`;
      await expect(move).rejects.toSatisfy((error: unknown) => sqlState(error) === '23514');
      expect((await download(app, tenant.key, tenant.companyId, uploaded.body.data.id)).bytes.equals(bytes)).toBe(true);
    });

    it('a dry run checks the file and stores nothing; an idempotent retry replays, another file with the same key is refused', async () => {
      const db = t.services.database.prisma;
      const bytes = Buffer.concat([PDF, Buffer.from(randomUUID())]);
      const dry = await uploadFile(app, tenant.key, tenant.companyId, bytes, { query: '?dry_run=true' });
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body.meta).toMatchObject({ dry_run: true, would_emit: ['document.uploaded'] });
      expect(await db.documentBlob.count({ where: { sha256: sha256(bytes) } })).toBe(0);
      const refusedDry = await uploadFile(app, tenant.key, tenant.companyId, REFUSED.text!, { query: '?dry_run=true' });
      expect(refusedDry.status).toBe(415);

      const key = randomUUID();
      const first = await uploadFile(app, tenant.key, tenant.companyId, bytes, { headers: { 'idempotency-key': key } });
      const replay = await uploadFile(app, tenant.key, tenant.companyId, bytes, { headers: { 'idempotency-key': key } });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.data).toEqual(first.body.data);
      expect(await db.document.count({ where: { sha256: sha256(bytes) } })).toBe(1);
      const reused = await uploadFile(app, tenant.key, tenant.companyId, PNG, { headers: { 'idempotency-key': key } });
      expect(reused.status).toBe(422);
    });
  });

  describe('evidence for journal entries', () => {
    it('attaches to drafts and committed entries, detaches from drafts only, and keeps evidence of committed entries', async () => {
      const document = (await uploadFile(app, tenant.key, tenant.companyId, Buffer.concat([PDF, Buffer.from(randomUUID())]))).body.data;
      const draft = (await b.draft('2026-03-10', OFFICE_SUPPLIES)).body.data;
      const committed = await b.book('2026-03-11', OFFICE_SUPPLIES);
      const attach = (entryId: string) => call(app, 'POST', docs(`/${document.id}/attachments`), { key: tenant.key, body: { journal_entry_id: entryId } });

      const toDraft = await attach(draft.id);
      expect(toDraft.status, toDraft.text).toBe(200);
      expect(toDraft.body.data.journal_entry_ids).toEqual([draft.id]);
      // The test clock is fixed, so both attachments share attached_at: compare as sets.
      const both = [draft.id, committed.id].sort();
      const toCommitted = await attach(committed.id);
      expect([...toCommitted.body.data.journal_entry_ids].sort()).toEqual(both);
      const again = await attach(committed.id);
      expect(again.status).toBe(200);
      expect([...again.body.data.journal_entry_ids].sort()).toEqual(both);
      expect((await attach(randomUUID())).status).toBe(404);

      const byEntry = await call(app, 'GET', docs(`?journal_entry_id=${committed.id}`), { key: tenant.key });
      expect(byEntry.body.data.documents.map((d: { id: string }) => d.id)).toEqual([document.id]);

      const detachCommitted = await call(app, 'DELETE', docs(`/${document.id}/attachments/${committed.id}`), { key: tenant.key });
      expect(detachCommitted.status).toBe(409);
      expect(detachCommitted.body.error.code).toBe('DOCUMENT_IS_EVIDENCE');
      expect((await call(app, 'DELETE', docs(`/${document.id}/attachments/${draft.id}`), { key: tenant.key })).status).toBe(204);
      expect((await call(app, 'DELETE', docs(`/${document.id}/attachments/${draft.id}`), { key: tenant.key })).status).toBe(404);

      const refused = await call(app, 'DELETE', docs(`/${document.id}`), { key: tenant.key });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: 'DOCUMENT_IS_EVIDENCE',
        details: [{ path: 'journal_entry_ids', message: `Attached to committed entry ${committed.id}.` }],
      });
      expect((await call(app, 'GET', docs(`/${document.id}`), { key: tenant.key })).body.data.journal_entry_ids).toEqual([committed.id]);

      // The database refuses it too, whatever the code does: the delete cascades into the guard.
      const db = t.services.database.prisma;
      await expect(db.$executeRaw`DELETE FROM documents WHERE id = ${document.id}::uuid`).rejects.toSatisfy((e: unknown) => sqlState(e) === '23514');
      await expect(db.$executeRaw`DELETE FROM document_attachments WHERE document_id = ${document.id}::uuid`).rejects.toSatisfy(
        (e: unknown) => sqlState(e) === '23514',
      );
      await expect(db.$executeRaw`UPDATE document_attachments SET attached_at = now() WHERE document_id = ${document.id}::uuid`).rejects.toSatisfy(
        (e: unknown) => sqlState(e) === '23514',
      );
      // Nor do its bytes go: not the blob (a document uses it), not one of its chunks.
      await expect(db.$executeRaw`DELETE FROM document_blobs WHERE company_id = ${tenant.companyId}::uuid AND sha256 = ${document.sha256}`).rejects.toSatisfy(
        (e: unknown) => sqlState(e) === '23503',
      );
      await expect(
        db.$executeRaw`DELETE FROM document_blob_chunks WHERE company_id = ${tenant.companyId}::uuid AND sha256 = ${document.sha256}`,
      ).rejects.toSatisfy((e: unknown) => sqlState(e) === '23514');
      expect(await chunkRows(tenant.companyId, document.sha256)).toHaveLength(1);
    });

    it('deletes a document attached to drafts only, and a deleted draft entry lets go of its documents', async () => {
      const document = (await uploadFile(app, tenant.key, tenant.companyId, Buffer.concat([PDF, Buffer.from(randomUUID())]))).body.data;
      const draft = (await b.draft('2026-03-12', OFFICE_SUPPLIES)).body.data;
      await call(app, 'POST', docs(`/${document.id}/attachments`), { key: tenant.key, body: { journal_entry_id: draft.id } });
      expect((await b.send('DELETE', `/journal-entries/${draft.id}`)).status).toBe(204);
      expect((await call(app, 'GET', docs(`/${document.id}`), { key: tenant.key })).body.data.journal_entry_ids).toEqual([]);

      const second = (await b.draft('2026-03-13', OFFICE_SUPPLIES)).body.data;
      await call(app, 'POST', docs(`/${document.id}/attachments`), { key: tenant.key, body: { journal_entry_id: second.id } });
      expect((await call(app, 'DELETE', docs(`/${document.id}`), { key: tenant.key })).status).toBe(204);
      expect((await call(app, 'GET', docs(`/${document.id}`), { key: tenant.key })).status).toBe(404);
      expect(await t.services.database.prisma.documentAttachment.count({ where: { documentId: document.id } })).toBe(0);
    });

    it('an attachment across companies is impossible in SQL (composite keys)', async () => {
      const mine = (await uploadFile(app, tenant.key, tenant.companyId, Buffer.concat([PDF, Buffer.from(randomUUID())]))).body.data;
      const theirEntry = (await books(app, other.key, other.companyId).draft('2026-03-10', OFFICE_SUPPLIES)).body.data;
      const db = t.services.database.prisma;
      for (const company of [tenant.companyId, other.companyId]) {
        const insert = db.$executeRaw`INSERT INTO document_attachments (company_id, document_id, journal_entry_id)
          VALUES (${company}::uuid, ${mine.id}::uuid, ${theirEntry.id}::uuid)`;
        await expect(insert).rejects.toSatisfy((e: unknown) => sqlState(e) === '23503');
      }
      const viaApi = await call(app, 'POST', docs(`/${mine.id}/attachments`), { key: tenant.key, body: { journal_entry_id: theirEntry.id } });
      expect(viaApi.status).toBe(404);
      expect(viaApi.body.error.details).toEqual([{ path: 'body.journal_entry_id', message: expect.any(String) }]);
    });
  });

  describe('lists and tenancy', () => {
    it('lists newest first, filters attached and unattached, pages with a cursor', async () => {
      const fresh = await makeTenant(t.services.database.prisma);
      const mine = books(app, fresh.key, fresh.companyId);
      await mine.createYear('2026-01-01');
      const ids: string[] = [];
      for (const bytes of [PDF, PNG, JPEG]) ids.push((await uploadFile(app, fresh.key, fresh.companyId, bytes)).body.data.id);
      const entry = (await mine.draft('2026-02-01', OFFICE_SUPPLIES)).body.data;
      await call(app, 'POST', `/api/v1/companies/${fresh.companyId}/documents/${ids[1]}/attachments`, { key: fresh.key, body: { journal_entry_id: entry.id } });
      const list = (query: string) => call(app, 'GET', `/api/v1/companies/${fresh.companyId}/documents${query}`, { key: fresh.key });
      const listed = (response: Awaited<ReturnType<typeof list>>) => response.body.data.documents.map((d: { id: string }) => d.id);

      // One clock for every upload: equal uploaded_at, so the id breaks the tie.
      const all = listed(await list(''));
      expect([...all].sort()).toEqual([...ids].sort());
      expect(listed(await list('?attached=true'))).toEqual([ids[1]]);
      expect(listed(await list('?attached=false'))).toEqual(all.filter((id: string) => id !== ids[1]));
      const first = await list('?limit=2');
      expect(first.body.meta.pagination.has_more).toBe(true);
      const second = await list(`?limit=2&cursor=${first.body.meta.pagination.next_cursor}`);
      expect([...listed(first), ...listed(second)]).toEqual(all);
      expect(second.body.meta.pagination).toEqual({ has_more: false, next_cursor: null });
      expect((await list('?attached=yes')).status).toBe(400);
      expect((await list('?kind=receipt')).status).toBe(400);
    });

    it('answers 404 on every route for another company’s document, through either company’s path', async () => {
      const theirs = (await uploadFile(app, other.key, other.companyId, PNG)).body.data;
      const entry = (await b.draft('2026-03-14', OFFICE_SUPPLIES)).body.data;
      const routes = (companyId: string): [string, string, unknown?][] => {
        const base = `/api/v1/companies/${companyId}/documents/${theirs.id}`;
        return [
          ['GET', base],
          ['GET', `${base}/content`],
          ['POST', `${base}/attachments`, { journal_entry_id: entry.id }],
          ['DELETE', `${base}/attachments/${entry.id}`],
          ['DELETE', base],
        ];
      };
      for (const companyId of [tenant.companyId, other.companyId]) {
        for (const [method, path, body] of routes(companyId)) {
          const response = await call(app, method, path, { key: tenant.key, ...(body !== undefined && { body }) });
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(response.body.error.code).toBe('NOT_FOUND');
        }
      }
      const list = await call(app, 'GET', `/api/v1/companies/${other.companyId}/documents`, { key: tenant.key });
      expect(list.status).toBe(404);
      const upload = await uploadFile(app, tenant.key, other.companyId, PNG);
      expect(upload.status).toBe(404);
      expect(
        (await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/documents?journal_entry_id=${entry.id}`, { key: tenant.key })).body.data.documents,
      ).toEqual([]);
      // Still there for its owner.
      expect((await download(app, other.key, other.companyId, theirs.id)).bytes.equals(PNG)).toBe(true);
    });

    it('reads need documents:read, writes documents:write', async () => {
      const reader = await makeTenant(t.services.database.prisma, ['documents:read']);
      const refused = await uploadFile(app, reader.key, reader.companyId, PNG);
      expect(refused.status).toBe(403);
      expect(refused.body.error.required_scope).toBe('documents:write');
      expect((await call(app, 'GET', `/api/v1/companies/${reader.companyId}/documents`, { key: reader.key })).status).toBe(200);
      const writer = await makeTenant(t.services.database.prisma, ['companies:read']);
      const list = await call(app, 'GET', `/api/v1/companies/${writer.companyId}/documents`, { key: writer.key });
      expect(list.body.error.required_scope).toBe('documents:read');
    });
  });

  describe('events', () => {
    it('each document event reaches a subscribed webhook exactly once, valid against its schema', async () => {
      const fresh = await makeTenant(t.services.database.prisma);
      const types: EventType[] = ['document.uploaded', 'document.attached', 'document.deleted'];
      const hooks = new Map<EventType, string>();
      for (const type of types) {
        const hook = await call(app, 'POST', `/api/v1/companies/${fresh.companyId}/webhooks`, {
          key: fresh.key,
          headers: { 'idempotency-key': randomUUID() },
          body: { event_type: type, webhook_url: 'https://hooks.example.com/documents', name: type, description: '' },
        });
        expect(hook.status, hook.text).toBe(201);
        hooks.set(type, hook.body.data.id);
      }
      const mine = books(app, fresh.key, fresh.companyId);
      await mine.createYear('2026-01-01');
      const entry = (await mine.draft('2026-04-01', OFFICE_SUPPLIES)).body.data;
      const document = (await uploadFile(app, fresh.key, fresh.companyId, PDF)).body.data;
      await call(app, 'POST', `/api/v1/companies/${fresh.companyId}/documents/${document.id}/attachments`, {
        key: fresh.key,
        body: { journal_entry_id: entry.id },
      });
      // A repeated attach and a detach emit nothing.
      await call(app, 'POST', `/api/v1/companies/${fresh.companyId}/documents/${document.id}/attachments`, {
        key: fresh.key,
        body: { journal_entry_id: entry.id },
      });
      await call(app, 'DELETE', `/api/v1/companies/${fresh.companyId}/documents/${document.id}/attachments/${entry.id}`, { key: fresh.key });
      await call(app, 'POST', `/api/v1/companies/${fresh.companyId}/documents/${document.id}/attachments`, {
        key: fresh.key,
        body: { journal_entry_id: entry.id },
      });
      expect((await call(app, 'DELETE', `/api/v1/companies/${fresh.companyId}/documents/${document.id}`, { key: fresh.key })).status).toBe(204);

      const db = t.services.database.prisma;
      const attached = await db.webhookDelivery.findMany({ where: { webhookId: hooks.get('document.attached')! } });
      // Attached twice (after the detach): two events; every other type exactly once.
      expect(attached).toHaveLength(2);
      for (const type of types) {
        const deliveries = await db.webhookDelivery.findMany({ where: { webhookId: hooks.get(type)! }, orderBy: { createdAt: 'asc' } });
        if (type !== 'document.attached') expect(deliveries, type).toHaveLength(1);
        for (const delivery of deliveries) {
          expect(delivery.status).toBe('pending');
          const payload = eventEnvelopeSchemaFor(type).parse(delivery.payload);
          expect(payload.data.object.id).toBe(document.id);
        }
      }
      const firstAttach = eventEnvelopeSchemaFor('document.attached').parse(attached[0]!.payload);
      expect(firstAttach.data.object.journal_entry_ids).toEqual([entry.id]);
      expect(firstAttach.data.previous_attributes).toEqual({ journal_entry_ids: [] });
    });
  });
});
