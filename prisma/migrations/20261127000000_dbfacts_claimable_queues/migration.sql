-- Issue 25 (dbfacts): what "claimable" means is stated once. Until now the claim, the metrics'
-- backlog gauges and health's delivery_backlog each spelled out the same predicate and the claim
-- and the gauges the same loose index scan, five copies to keep equal.

-- A claimable delivery: pending or failed (in_flight rows are never claimed) and still attached to
-- a webhook (spec "States and transitions", rules 3 and 4). Due-ness is left to the reader, who
-- compares next_attempt_at with its own clock. A plain view: the planner expands it into every
-- statement that reads it, so the predicate still matches the webhook_deliveries_claim partial
-- index (which must repeat it: an index predicate cannot name a view), and FOR UPDATE SKIP LOCKED
-- through it locks the underlying rows.
CREATE VIEW claimable_webhook_deliveries AS
  SELECT id, company_id, next_attempt_at
    FROM webhook_deliveries
   WHERE status IN ('pending', 'failed') AND webhook_id IS NOT NULL;

-- Every company with claimable deliveries and its oldest one's next_attempt_at: a loose index scan
-- of the claim index, one probe per company, so its cost follows the number of queues and never
-- the delivered history. A SQL function that PostgreSQL inlines into the calling statement (STABLE,
-- not STRICT, no SET clause, one SELECT): the caller's plan is the same as with the text written in
-- place, and a PL/pgSQL caller (the claim) still plans it once per session.
CREATE FUNCTION claimable_delivery_queues()
RETURNS TABLE (company_id uuid, oldest timestamptz)
LANGUAGE sql STABLE AS $$
  WITH RECURSIVE queues AS (
    (SELECT d.company_id, d.next_attempt_at AS oldest
       FROM claimable_webhook_deliveries d
      ORDER BY d.company_id, d.next_attempt_at
      LIMIT 1)
    UNION ALL
    SELECT n.company_id, n.oldest
      FROM queues q
     CROSS JOIN LATERAL (
       SELECT d.company_id, d.next_attempt_at AS oldest
         FROM claimable_webhook_deliveries d
        WHERE d.company_id > q.company_id
        ORDER BY d.company_id, d.next_attempt_at
        LIMIT 1
     ) n
  )
  SELECT queues.company_id, queues.oldest FROM queues
$$;
REVOKE ALL ON FUNCTION claimable_delivery_queues() FROM PUBLIC;

-- The claim of 20261123050000_webhook_rotation_health_fair_claim, unchanged in what it does, now
-- reading the queues and each queue's rows through the two definitions above.
CREATE OR REPLACE FUNCTION claim_webhook_deliveries(batch integer, as_of timestamptz DEFAULT now())
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
  WITH due AS (
    SELECT q.company_id, q.oldest
      FROM claimable_delivery_queues() q
     WHERE q.oldest <= as_of
     ORDER BY q.oldest
     LIMIT batch
  ), locked AS (
    SELECT x.id, x.next_attempt_at,
           row_number() OVER (PARTITION BY x.company_id ORDER BY x.next_attempt_at, x.id) AS turn
      FROM due q
     CROSS JOIN LATERAL (
       SELECT d.id, d.company_id, d.next_attempt_at
         FROM claimable_webhook_deliveries d
          -- From the company's oldest row on: the index entries before it are dead ones.
        WHERE d.company_id = q.company_id AND d.next_attempt_at >= q.oldest AND d.next_attempt_at <= as_of
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

-- Health's two aggregates (20261123030000_health_backlog), over the same definition. Still
-- SECURITY DEFINER with its search_path: api_anon may call it, and cannot read the view.
CREATE OR REPLACE FUNCTION delivery_backlog(as_of timestamptz DEFAULT now())
RETURNS TABLE (due bigint, oldest_due_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT count(*), min(next_attempt_at)
    FROM claimable_webhook_deliveries
   WHERE next_attempt_at <= as_of
$$;
