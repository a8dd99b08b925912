-- Documents (underlag): receipts and invoices kept as evidence for journal entries (Bokföringslagen
-- wants every verification backed by its documents, kept seven years). The bytes live here, in
-- the database, so every API process on one PostgreSQL serves every document and the embedded
-- database needs nothing more.

-- The bytes, content-addressed per company: the same file uploaded twice is stored once. The key
-- is the SHA-256 of the content, checked here, so a row can never claim another file's digest.
CREATE TABLE document_blobs (
  company_id    uuid NOT NULL REFERENCES companies(id),
  sha256        text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content       bytea NOT NULL,
  size_bytes    integer NOT NULL CHECK (size_bytes > 0),
  -- Detected from the bytes at upload (never the client's word); the same bytes, the same type.
  content_type  text NOT NULL CHECK (content_type ~ '^[a-z]+/[a-z0-9.+-]+$'),
  created_at    timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, sha256),
  CHECK (size_bytes = octet_length(content)),
  CHECK (sha256 = encode(sha256(content), 'hex'))
);

-- Evidence never changes: a blob is inserted and, once no document uses it, deleted; never updated.
CREATE FUNCTION document_blobs_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'document content % cannot be changed', OLD.sha256 USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER document_blobs_immutable BEFORE UPDATE ON document_blobs
  FOR EACH ROW EXECUTE FUNCTION document_blobs_immutable();

CREATE TABLE documents (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id              uuid NOT NULL REFERENCES companies(id),
  sha256                  text NOT NULL,
  -- For display only (sanitised: no path, no control characters); never a storage path.
  filename                text NOT NULL CHECK (length(filename) BETWEEN 1 AND 255 AND filename !~ '[/\\[:cntrl:]]'),
  description             text CHECK (description IS NULL OR length(description) BETWEEN 1 AND 1000),
  uploaded_by_api_key_id  uuid,
  uploaded_at             timestamptz(6) NOT NULL DEFAULT now(),
  UNIQUE (company_id, id),
  FOREIGN KEY (company_id, sha256) REFERENCES document_blobs (company_id, sha256)
);
-- The list walks (uploaded_at, id) newest first; deletes look for other users of a blob.
CREATE INDEX documents_list ON documents (company_id, uploaded_at DESC, id DESC);
CREATE INDEX documents_by_blob ON documents (company_id, sha256);

-- What a document is (its company, content, upload) is fixed; only display fields may change.
CREATE FUNCTION documents_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.company_id <> OLD.company_id OR NEW.sha256 <> OLD.sha256 OR NEW.uploaded_at <> OLD.uploaded_at
     OR NEW.uploaded_by_api_key_id IS DISTINCT FROM OLD.uploaded_by_api_key_id THEN
    RAISE EXCEPTION 'document % cannot change its company, content or upload', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER documents_identity_fixed BEFORE UPDATE ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_identity_fixed();

-- Which documents back which entries (many to many). Both references carry company_id, so a
-- document can only ever back an entry of its own company. Deleting a document takes its
-- attachments with it (refused below while one is to a committed entry); deleting a draft entry
-- takes its attachments too.
CREATE TABLE document_attachments (
  company_id              uuid NOT NULL,
  document_id             uuid NOT NULL,
  journal_entry_id        uuid NOT NULL,
  attached_at             timestamptz(6) NOT NULL DEFAULT now(),
  attached_by_api_key_id  uuid,
  PRIMARY KEY (company_id, document_id, journal_entry_id),
  FOREIGN KEY (company_id, document_id) REFERENCES documents (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id) ON DELETE CASCADE
);
CREATE INDEX document_attachments_by_entry ON document_attachments (company_id, journal_entry_id);

-- The evidence must stay: an attachment to a committed entry is never removed — not by a detach,
-- not by deleting the document (the cascade runs this trigger too). Attachments never change.
CREATE FUNCTION document_attachments_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RAISE EXCEPTION 'document attachments cannot be changed, only added or removed' USING ERRCODE = 'check_violation';
  END IF;
  IF EXISTS (SELECT 1 FROM journal_entries e
              WHERE e.company_id = OLD.company_id AND e.id = OLD.journal_entry_id AND e.status = 'committed') THEN
    RAISE EXCEPTION 'document % is evidence for committed journal entry % and must be kept', OLD.document_id, OLD.journal_entry_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER document_attachments_guard BEFORE UPDATE OR DELETE ON document_attachments
  FOR EACH ROW EXECUTE FUNCTION document_attachments_guard();

REVOKE ALL ON document_blobs, documents, document_attachments FROM api_anon;
