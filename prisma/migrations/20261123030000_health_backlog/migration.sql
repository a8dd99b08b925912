-- Health reports the delivery backlog: how many deliveries are due now and since when the oldest
-- has waited. Public health runs as api_anon, which reads no table; this SECURITY DEFINER
-- function returns those two aggregates and nothing else (no ids, no tenant data). It reads the
-- same rows as the claim, through the claim's partial index.
CREATE FUNCTION delivery_backlog(as_of timestamptz DEFAULT now())
RETURNS TABLE (due bigint, oldest_due_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT count(*), min(next_attempt_at)
    FROM webhook_deliveries
   WHERE status IN ('pending', 'failed') AND webhook_id IS NOT NULL AND next_attempt_at <= as_of
$$;
REVOKE ALL ON FUNCTION delivery_backlog(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION delivery_backlog(timestamptz) TO api_anon;
