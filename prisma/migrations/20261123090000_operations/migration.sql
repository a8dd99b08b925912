-- Long-running operations (spec "Operation"; issue 15): queued → running → succeeded | failed |
-- cancelled. Terminal rows are immutable and undeletable (23514); queued and running rows may be
-- deleted. A runner holds a running row under a lease it renews; a lease that expires (its holder
-- died) lets another runner pick the row up again, so every kind's work is safe to rerun from
-- its checkpoint.

CREATE TABLE operations (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id             uuid NOT NULL REFERENCES companies(id),
  kind                   text NOT NULL CHECK (kind IN ('close_fiscal_year', 'sie_import', 'recover_webhook_deliveries')),
  status                 text NOT NULL DEFAULT 'queued'
                         CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  input                  jsonb NOT NULL DEFAULT '{}'::jsonb,
  progress               integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
  progress_message       text,
  -- Where a rerun resumes; written in the same transaction as the work it records.
  checkpoint             jsonb,
  result                 jsonb,
  error_code             text,
  error_message          text,
  cancel_requested       boolean NOT NULL DEFAULT false,
  attempts               integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_holder           text,
  lease_expires_at       timestamptz(6),
  created_by_api_key_id  uuid,
  created_at             timestamptz(6) NOT NULL DEFAULT now(),
  started_at             timestamptz(6),
  finished_at            timestamptz(6),
  CHECK ((status IN ('succeeded', 'failed', 'cancelled')) = (finished_at IS NOT NULL)),
  CHECK ((status = 'failed') = (error_code IS NOT NULL)),
  CHECK ((status = 'running') = (lease_holder IS NOT NULL AND lease_expires_at IS NOT NULL)),
  UNIQUE (company_id, id)
);
-- The runner's claim reads only queued rows and running rows whose lease may have expired.
CREATE INDEX operations_claimable ON operations (created_at) WHERE status = 'queued';
CREATE INDEX operations_leased ON operations (lease_expires_at) WHERE status = 'running';
CREATE INDEX operations_list ON operations (company_id, created_at DESC, id DESC);

-- Bulky inputs (an uploaded SIE file) live beside the row, so listing operations stays light.
CREATE TABLE operation_inputs (
  operation_id  uuid PRIMARY KEY REFERENCES operations(id) ON DELETE CASCADE,
  content       bytea NOT NULL
);

CREATE FUNCTION operations_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IN ('succeeded', 'failed', 'cancelled') THEN
    RAISE EXCEPTION 'operation % is % and cannot be %', OLD.id, OLD.status,
      CASE TG_OP WHEN 'DELETE' THEN 'deleted' ELSE 'changed' END
      USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER operations_guard BEFORE UPDATE OR DELETE ON operations
  FOR EACH ROW EXECUTE FUNCTION operations_guard();

REVOKE ALL ON operations, operation_inputs FROM api_anon;
