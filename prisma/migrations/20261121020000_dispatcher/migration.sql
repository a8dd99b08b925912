-- The delivery pipeline: the claim function and an append-only log of every attempt (the
-- delivery row keeps only the latest response; the audit trail keeps them all).

-- Keyed by (delivery, attempt number): one index serves both uniqueness and lookups, which
-- matters because a whole batch of attempts is inserted on the dispatcher's hot path.
CREATE TABLE webhook_delivery_attempts (
  delivery_id     uuid NOT NULL REFERENCES webhook_deliveries(id),
  attempt_number  integer NOT NULL CHECK (attempt_number >= 1),
  outcome         text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'dead')),
  started_at      timestamptz(6) NOT NULL,
  finished_at     timestamptz(6) NOT NULL,
  response_status integer,
  error_class     text,
  response_body   text CHECK (response_body IS NULL OR octet_length(response_body) <= 8192),
  PRIMARY KEY (delivery_id, attempt_number)
);

CREATE TRIGGER webhook_delivery_attempts_append_only BEFORE UPDATE OR DELETE ON webhook_delivery_attempts
  FOR EACH ROW EXECUTE FUNCTION refuse_change_append_only();

-- Refuses a claim batch outside 1..1000 (spec Limits); called once per claim.
CREATE FUNCTION assert_claim_batch(batch integer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF batch IS NULL OR batch < 1 OR batch > 1000 THEN
    RAISE EXCEPTION 'claim batch must be between 1 and 1000, got %', batch USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN true;
END $$;

-- Claims up to `batch` due deliveries for one dispatcher: pending or failed rows whose time has
-- come and whose webhook still exists, oldest due first. SKIP LOCKED lets any number of
-- dispatchers claim at once without ever sharing a row. Returns what sending needs. Plain SQL
-- (not PL/pgSQL's RETURN QUERY) keeps the hot path free of an extra materialisation.
CREATE FUNCTION claim_webhook_deliveries(batch integer, as_of timestamptz DEFAULT now())
RETURNS TABLE (
  delivery_id         uuid,
  delivery_company_id uuid,
  webhook_id          uuid,
  webhook_company_id  uuid,
  webhook_url         text,
  secret_encrypted    text,
  webhook_disabled    boolean,
  livemode            boolean,
  event_id            uuid,
  event_type          text,
  payload             jsonb,
  attempts            integer
) LANGUAGE sql AS $$
  WITH picked AS (
    SELECT d.id
      FROM webhook_deliveries d
     WHERE d.status IN ('pending', 'failed')
       AND d.webhook_id IS NOT NULL
       AND d.next_attempt_at <= as_of
     ORDER BY d.next_attempt_at
     -- The LIMIT expression is evaluated once, before any row is read, even for batch 0.
     LIMIT CASE WHEN assert_claim_batch(batch) THEN batch END
     FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE webhook_deliveries d SET status = 'in_flight'
      FROM picked WHERE d.id = picked.id
    RETURNING d.id, d.company_id, d.webhook_id, d.event_id, d.event_type, d.payload, d.attempts, d.next_attempt_at
  )
  SELECT c.id, c.company_id, c.webhook_id, w.company_id, w.webhook_url, w.secret_encrypted,
         w.disabled_at IS NOT NULL, co.livemode, c.event_id, c.event_type, c.payload, c.attempts
    FROM claimed c
    JOIN webhooks w ON w.id = c.webhook_id
    LEFT JOIN companies co ON co.id = w.company_id
   ORDER BY c.next_attempt_at
$$;
REVOKE ALL ON FUNCTION claim_webhook_deliveries(integer, timestamptz) FROM PUBLIC;
REVOKE ALL ON webhook_delivery_attempts FROM api_anon;
