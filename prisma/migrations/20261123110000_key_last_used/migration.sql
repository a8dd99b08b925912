-- admit_request also records api_keys.last_used_at (shown by `npm run admin -- key list`), on the
-- first request of each rate-limit window, so the column costs no write per request.
CREATE OR REPLACE FUNCTION admit_request(p_key_hash text, p_api_key_id uuid, p_company_id uuid, p_window_start timestamptz)
RETURNS TABLE (
  api_key_id             uuid,
  name                   text,
  user_id                uuid,
  key_company_id         uuid,
  scopes                 text,
  mode                   text,
  rate_limit_per_minute  integer,
  request_count          integer,
  company_access         boolean
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k api_keys%ROWTYPE;
BEGIN
  IF p_key_hash IS NOT NULL THEN
    SELECT * INTO k FROM api_keys WHERE key_hash = p_key_hash AND revoked_at IS NULL;
  ELSE
    SELECT * INTO k FROM api_keys WHERE id = p_api_key_id AND revoked_at IS NULL;
  END IF;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  -- Atomic per key (the row lock serialises concurrent counts), so every process sharing the
  -- database sees one exact count. A plain UPDATE is the common case; only a key's first request
  -- ever inserts. A request stamped with an older window than the row's (a lagging clock) counts
  -- in the newer one.
  UPDATE rate_limit_counters AS c
     SET count = CASE WHEN p_window_start > c.window_start THEN 1 ELSE c.count + 1 END,
         window_start = GREATEST(c.window_start, p_window_start)
   WHERE c.api_key_id = k.id
  RETURNING c.count INTO request_count;
  IF NOT FOUND THEN
    INSERT INTO rate_limit_counters AS c (api_key_id, window_start, count)
    VALUES (k.id, p_window_start, 1)
    ON CONFLICT ON CONSTRAINT rate_limit_counters_pkey DO UPDATE
      SET count = CASE WHEN EXCLUDED.window_start > c.window_start THEN 1 ELSE c.count + 1 END,
          window_start = GREATEST(c.window_start, EXCLUDED.window_start)
    RETURNING c.count INTO request_count;
  END IF;

  -- A key's first request of a window records when it was last used: a logged write at most
  -- once a minute per key, never one per request.
  IF request_count = 1 THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = k.id;
  END IF;

  api_key_id := k.id;
  name := k.name;
  user_id := k.user_id;
  key_company_id := k.company_id;
  -- Comma-separated (scope names hold no commas): splitting text is far cheaper for the driver
  -- than parsing an array literal on every request.
  scopes := array_to_string(k.scopes, ',');
  mode := k.mode;
  rate_limit_per_minute := k.rate_limit_per_minute;
  company_access := CASE WHEN p_company_id IS NULL THEN NULL ELSE
    (k.company_id IS NULL OR k.company_id = p_company_id) AND EXISTS (
      SELECT 1 FROM memberships m JOIN companies co ON co.id = m.company_id
       WHERE m.user_id = k.user_id AND m.company_id = p_company_id
         AND co.archived_at IS NULL AND co.livemode = (k.mode = 'live'))
  END;
  RETURN NEXT;
END $$;
