-- Issue 18: secret rotation, auto-disable on persistent failure, a claim fair across companies.

-- Secret rotation: during the overlap every delivery is signed with the new secret and the
-- previous one (both AES-256-GCM ciphertexts). The dispatcher erases the previous secret once the
-- overlap ends; the pair is set and cleared together.
-- Delivery health (auto-disable): failing_since is when deliveries started failing without a
-- success since, consecutive_dead counts terminal deliveries that ended dead in a row, last_error
-- is the latest failed attempt's error. One success clears all three.
ALTER TABLE webhooks
  ADD COLUMN previous_secret_encrypted  text,
  ADD COLUMN previous_secret_expires_at timestamptz(6),
  ADD COLUMN failing_since              timestamptz(6),
  ADD COLUMN consecutive_dead           integer NOT NULL DEFAULT 0 CHECK (consecutive_dead >= 0),
  ADD COLUMN last_error                 text,
  ADD CONSTRAINT webhooks_previous_secret_pair
    CHECK ((previous_secret_encrypted IS NULL) = (previous_secret_expires_at IS NULL));
-- Erasing expired previous secrets reads only webhooks inside an overlap.
CREATE INDEX webhooks_previous_secret_expiry ON webhooks (previous_secret_expires_at)
  WHERE previous_secret_encrypted IS NOT NULL;

-- The claim index leads with the company so the claim can visit each company's queue on its own
-- (round-robin) while still reading claimable rows only: terminal rows never enter it.
DROP INDEX webhook_deliveries_claim;
CREATE INDEX webhook_deliveries_claim ON webhook_deliveries (company_id, next_attempt_at)
  WHERE status IN ('pending', 'failed') AND webhook_id IS NOT NULL;

-- Claims up to `batch` due deliveries, round-robin across companies: every company with due rows
-- (up to `batch` companies, oldest first) gets its oldest row before any company gets a second,
-- so one tenant's backlog of 100,000 rows cannot delay another tenant's 10. Still one statement:
--   queues  a loose index scan of the claim index: one probe per company with claimable rows,
--           which also finds that company's oldest claimable row;
--   due     the companies whose oldest row is due, oldest first, at most `batch` of them;
--   locked  per due company its oldest due rows, FOR UPDATE SKIP LOCKED, at most
--           batch - companies + 1 each (every other company fills at least one place), so
--           concurrent claimers skip each other's rows exactly as before and never share one;
--   picked  the first `batch` of those by turn (1st row of each company, then 2nd, ...).
-- Rows locked but not picked are released when the statement's transaction ends.
-- Also returns the previous secret while its overlap lasts, whether the webhook is failing (so
-- the dispatcher writes delivery health only when it changes) and rows whose webhook vanished.
-- PL/pgSQL rather than a SQL function: PostgreSQL plans a SQL function's body on every call, and
-- planning this statement cost about as much as running it; PL/pgSQL keeps the plan for the
-- session (its RETURN QUERY buffers the 50 rows, which is cheap by comparison).
DROP FUNCTION claim_webhook_deliveries(integer, timestamptz);
CREATE FUNCTION claim_webhook_deliveries(batch integer, as_of timestamptz DEFAULT now())
RETURNS TABLE (
  delivery_id               uuid,
  delivery_company_id       uuid,
  webhook_id                uuid,
  webhook_company_id        uuid,
  webhook_url               text,
  secret_encrypted          text,
  previous_secret_encrypted text,
  webhook_disabled          boolean,
  webhook_failing           boolean,
  livemode                  boolean,
  event_id                  uuid,
  event_type                text,
  payload                   jsonb,
  attempts                  integer
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH RECURSIVE queues AS (
    (SELECT d.company_id, d.next_attempt_at AS oldest
       FROM webhook_deliveries d
      WHERE d.status IN ('pending', 'failed') AND d.webhook_id IS NOT NULL
      ORDER BY d.company_id, d.next_attempt_at
      LIMIT 1)
    UNION ALL
    SELECT n.company_id, n.oldest
      FROM queues q
     CROSS JOIN LATERAL (
       SELECT d.company_id, d.next_attempt_at AS oldest
         FROM webhook_deliveries d
        WHERE d.status IN ('pending', 'failed') AND d.webhook_id IS NOT NULL
          AND d.company_id > q.company_id
        ORDER BY d.company_id, d.next_attempt_at
        LIMIT 1
     ) n
  ), due AS (
    SELECT q.company_id, q.oldest
      FROM queues q
     WHERE q.oldest <= as_of
     ORDER BY q.oldest
     LIMIT batch
  ), locked AS (
    SELECT x.id, x.next_attempt_at,
           row_number() OVER (PARTITION BY x.company_id ORDER BY x.next_attempt_at, x.id) AS turn
      FROM due q
     CROSS JOIN LATERAL (
       SELECT d.id, d.company_id, d.next_attempt_at
         FROM webhook_deliveries d
        WHERE d.status IN ('pending', 'failed') AND d.webhook_id IS NOT NULL
          -- From the company's oldest row on: the index entries before it are dead ones.
          AND d.company_id = q.company_id AND d.next_attempt_at >= q.oldest AND d.next_attempt_at <= as_of
        ORDER BY d.next_attempt_at
        LIMIT batch - (SELECT count(*) FROM due)::int + 1
        FOR UPDATE SKIP LOCKED
     ) x
  ), picked AS (
    SELECT l.id, l.turn
      FROM locked l
     ORDER BY l.turn, l.next_attempt_at, l.id
     -- The outermost LIMIT is evaluated first, before any row is read, so batch 0 is refused too.
     LIMIT CASE WHEN assert_claim_batch(batch) THEN batch END
  ), claimed AS (
    UPDATE webhook_deliveries d SET status = 'in_flight'
      FROM picked WHERE d.id = picked.id
    RETURNING d.id, d.company_id, d.webhook_id, d.event_id, d.event_type, d.payload, d.attempts,
              d.next_attempt_at, picked.turn
  )
  SELECT c.id, c.company_id, c.webhook_id, w.company_id, w.webhook_url, w.secret_encrypted,
         CASE WHEN w.previous_secret_expires_at > as_of THEN w.previous_secret_encrypted END,
         w.disabled_at IS NOT NULL,
         w.failing_since IS NOT NULL OR w.consecutive_dead > 0 OR w.last_error IS NOT NULL,
         co.livemode, c.event_id, c.event_type, c.payload, c.attempts
    FROM claimed c
    LEFT JOIN webhooks w ON w.id = c.webhook_id
    LEFT JOIN companies co ON co.id = w.company_id
   ORDER BY c.turn, c.next_attempt_at, c.id;
END
$$;
REVOKE ALL ON FUNCTION claim_webhook_deliveries(integer, timestamptz) FROM PUBLIC;
