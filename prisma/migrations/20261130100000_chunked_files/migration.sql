-- Uploaded files stored as ordered chunks (issue 28): a document's bytes and an operation's input
-- (an SIE file) were one bytea value each, which the service had to hold whole — on the way in
-- and on the way out, several times over (eight concurrent 20 MiB uploads: +1.35 GB). Now each is
-- a parent row with the file's facts and rows of at most 256 KiB (STORED_CHUNK_BYTES in
-- domain/db/chunks.ts), written as they stream in and read back a few at a time.
--
-- What the database checks changes with it: the size and the completeness of a file (every seq
-- from 0, the lengths adding up to size_bytes) are checked at commit; the SHA-256 is computed by
-- the service as the bytes stream in (no statement ever sees the whole file, so none can hash
-- it). A chunk never changes and goes only with its file.

-- Documents ---------------------------------------------------------------------------------------

CREATE TABLE document_blob_chunks (
  company_id  uuid NOT NULL,
  sha256      text NOT NULL,
  seq         integer NOT NULL CHECK (seq >= 0),
  data        bytea NOT NULL CHECK (octet_length(data) > 0),
  PRIMARY KEY (company_id, sha256, seq),
  FOREIGN KEY (company_id, sha256) REFERENCES document_blobs (company_id, sha256) ON DELETE CASCADE
);

-- 262144 is STORED_CHUNK_BYTES as this migration was written; readers follow seq, not the size.
INSERT INTO document_blob_chunks (company_id, sha256, seq, data)
SELECT b.company_id, b.sha256, n, substring(b.content FROM n * 262144 + 1 FOR 262144)
  FROM document_blobs b, generate_series(0, (b.size_bytes - 1) / 262144) AS n;

-- Drops the two CHECKs on content with it (size and digest); completeness is checked below.
ALTER TABLE document_blobs DROP COLUMN content;

-- The bytes are as immutable as the blob: the same trigger refuses any update of a chunk.
CREATE TRIGGER document_blob_chunks_immutable BEFORE UPDATE ON document_blob_chunks
  FOR EACH ROW EXECUTE FUNCTION document_blobs_immutable();

-- Evidence stays whole: a chunk goes only with its blob (the cascade, once the blob row is gone),
-- and the blob only once no document uses it (documents' foreign key), and a document only once
-- it backs no committed entry (document_attachments_guard).
CREATE FUNCTION document_blob_chunks_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM document_blobs b WHERE b.company_id = OLD.company_id AND b.sha256 = OLD.sha256) THEN
    RAISE EXCEPTION 'document content % loses bytes only with its blob', OLD.sha256 USING ERRCODE = 'check_violation';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER document_blob_chunks_guard BEFORE DELETE ON document_blob_chunks
  FOR EACH ROW EXECUTE FUNCTION document_blob_chunks_guard();

-- At commit: a blob that still exists has every chunk from 0 and exactly size_bytes of them.
CREATE FUNCTION document_blobs_complete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  declared integer;
  chunks integer;
  last_seq integer;
  total bigint;
BEGIN
  SELECT size_bytes INTO declared FROM document_blobs WHERE company_id = NEW.company_id AND sha256 = NEW.sha256;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT count(*), coalesce(max(seq), -1), coalesce(sum(octet_length(data)), 0) INTO chunks, last_seq, total
    FROM document_blob_chunks WHERE company_id = NEW.company_id AND sha256 = NEW.sha256;
  IF total <> declared OR last_seq <> chunks - 1 THEN
    RAISE EXCEPTION 'document content % is incomplete: % bytes in % chunks, % declared', NEW.sha256, total, chunks, declared
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER document_blobs_complete AFTER INSERT ON document_blobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION document_blobs_complete();
CREATE CONSTRAINT TRIGGER document_blob_chunks_complete AFTER INSERT ON document_blob_chunks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION document_blobs_complete();

-- Operation inputs ------------------------------------------------------------------------------

-- The input row keeps the file's facts and carries the operation's company, so its chunks are
-- keyed by company like every other tenant row.
ALTER TABLE operation_inputs ADD COLUMN company_id uuid, ADD COLUMN size_bytes integer;
UPDATE operation_inputs i SET company_id = o.company_id, size_bytes = octet_length(i.content)
  FROM operations o WHERE o.id = i.operation_id;
ALTER TABLE operation_inputs
  ALTER COLUMN company_id SET NOT NULL,
  ALTER COLUMN size_bytes SET NOT NULL,
  ADD CHECK (size_bytes > 0),
  ADD UNIQUE (company_id, operation_id),
  DROP CONSTRAINT operation_inputs_operation_id_fkey,
  ADD FOREIGN KEY (company_id, operation_id) REFERENCES operations (company_id, id) ON DELETE CASCADE;

CREATE TABLE operation_input_chunks (
  company_id    uuid NOT NULL,
  operation_id  uuid NOT NULL,
  seq           integer NOT NULL CHECK (seq >= 0),
  data          bytea NOT NULL CHECK (octet_length(data) > 0),
  PRIMARY KEY (company_id, operation_id, seq),
  FOREIGN KEY (company_id, operation_id) REFERENCES operation_inputs (company_id, operation_id) ON DELETE CASCADE
);

INSERT INTO operation_input_chunks (company_id, operation_id, seq, data)
SELECT i.company_id, i.operation_id, n, substring(i.content FROM n * 262144 + 1 FOR 262144)
  FROM operation_inputs i, generate_series(0, (i.size_bytes - 1) / 262144) AS n;

ALTER TABLE operation_inputs DROP COLUMN content;

-- An input is what the operation was started with: never changed, gone only with its operation
-- (and a finished operation is never deleted: operations_guard).
CREATE FUNCTION operation_inputs_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the input of operation % cannot be changed', OLD.operation_id USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER operation_inputs_immutable BEFORE UPDATE ON operation_inputs
  FOR EACH ROW EXECUTE FUNCTION operation_inputs_immutable();
CREATE TRIGGER operation_input_chunks_immutable BEFORE UPDATE ON operation_input_chunks
  FOR EACH ROW EXECUTE FUNCTION operation_inputs_immutable();

CREATE FUNCTION operation_inputs_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'operation_input_chunks' THEN
    IF EXISTS (SELECT 1 FROM operation_inputs i WHERE i.company_id = OLD.company_id AND i.operation_id = OLD.operation_id) THEN
      RAISE EXCEPTION 'the input of operation % loses bytes only with the operation', OLD.operation_id USING ERRCODE = 'check_violation';
    END IF;
  ELSIF EXISTS (SELECT 1 FROM operations o WHERE o.company_id = OLD.company_id AND o.id = OLD.operation_id) THEN
    RAISE EXCEPTION 'the input of operation % goes only with the operation', OLD.operation_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER operation_inputs_guard BEFORE DELETE ON operation_inputs
  FOR EACH ROW EXECUTE FUNCTION operation_inputs_guard();
CREATE TRIGGER operation_input_chunks_guard BEFORE DELETE ON operation_input_chunks
  FOR EACH ROW EXECUTE FUNCTION operation_inputs_guard();

CREATE FUNCTION operation_inputs_complete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  declared integer;
  chunks integer;
  last_seq integer;
  total bigint;
BEGIN
  SELECT size_bytes INTO declared FROM operation_inputs WHERE company_id = NEW.company_id AND operation_id = NEW.operation_id;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT count(*), coalesce(max(seq), -1), coalesce(sum(octet_length(data)), 0) INTO chunks, last_seq, total
    FROM operation_input_chunks WHERE company_id = NEW.company_id AND operation_id = NEW.operation_id;
  IF total <> declared OR last_seq <> chunks - 1 THEN
    RAISE EXCEPTION 'the input of operation % is incomplete: % bytes in % chunks, % declared', NEW.operation_id, total, chunks, declared
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER operation_inputs_complete AFTER INSERT ON operation_inputs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION operation_inputs_complete();
CREATE CONSTRAINT TRIGGER operation_input_chunks_complete AFTER INSERT ON operation_input_chunks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION operation_inputs_complete();

REVOKE ALL ON document_blob_chunks, operation_input_chunks FROM api_anon;
