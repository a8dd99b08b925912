-- Issue 28, key check: the first start records a check value of ENCRYPTION_KEY (an HMAC of a
-- constant under the key, never the key); a process started with another key compares, refuses
-- to start and so never writes or reads secrets with the wrong key. One row at most (id = true).
CREATE TABLE encryption_key_check (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  check_value text NOT NULL,
  recorded_at timestamptz(6) NOT NULL DEFAULT now()
);
REVOKE ALL ON encryption_key_check FROM api_anon;

-- A delivery whose webhook secret cannot be decrypted waits (status 'failed', last_error
-- 'secret_undecryptable', its attempts not counted) instead of ending dead. Health and metrics
-- count those rows through this partial index, which holds only them.
CREATE INDEX webhook_deliveries_waiting_for_key_idx ON webhook_deliveries (id)
  WHERE status = 'failed' AND last_error = 'secret_undecryptable';

-- Public health runs as api_anon, which reads no table: this SECURITY DEFINER function returns
-- the one count and nothing else (no ids, no tenant data).
CREATE FUNCTION deliveries_waiting_for_key()
RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT count(*) FROM webhook_deliveries WHERE status = 'failed' AND last_error = 'secret_undecryptable'
$$;
REVOKE ALL ON FUNCTION deliveries_waiting_for_key() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION deliveries_waiting_for_key() TO api_anon;
