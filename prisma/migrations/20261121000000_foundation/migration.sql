-- Foundation: identities, tenancy, API keys, and the request pipeline's shared state.

CREATE TABLE users (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email       text NOT NULL UNIQUE,
  name        text NOT NULL,
  created_at  timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE companies (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         text NOT NULL,
  org_number   text NOT NULL,
  entity_type  text NOT NULL,
  -- Sandbox companies are reachable only with test keys, live ones only with live keys.
  livemode     boolean NOT NULL DEFAULT false,
  archived_at  timestamptz(6),
  created_at   timestamptz(6) NOT NULL DEFAULT now(),
  updated_at   timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  role        text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member')),
  joined_at   timestamptz(6) NOT NULL DEFAULT now(),
  UNIQUE (user_id, company_id)
);
-- The companies list walks a user's memberships in (joined_at, id) order.
CREATE INDEX memberships_user_keyset ON memberships (user_id, joined_at, id);

CREATE TABLE api_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  company_id    uuid REFERENCES companies(id) ON DELETE CASCADE,
  name          text NOT NULL,
  prefix        text NOT NULL,
  key_hash      text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  mode          text NOT NULL CHECK (mode IN ('test', 'live')),
  scopes        text[] NOT NULL DEFAULT '{}',
  rate_limit_per_minute integer CHECK (rate_limit_per_minute > 0),
  created_at    timestamptz(6) NOT NULL DEFAULT now(),
  last_used_at  timestamptz(6),
  revoked_at    timestamptz(6)
);

-- Fixed one-minute windows, one row per key record and window, shared by every process.
CREATE TABLE rate_limit_windows (
  api_key_id    uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  window_start  timestamptz(6) NOT NULL,
  count         integer NOT NULL,
  PRIMARY KEY (api_key_id, window_start)
);

CREATE TABLE idempotency_records (
  api_key_id          uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  idempotency_key     text NOT NULL,
  request_fingerprint text NOT NULL,
  state               text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  response_status     integer,
  -- Encrypted: a replayed webhook create carries the secret again.
  response_body       text,
  locked_until        timestamptz(6) NOT NULL,
  created_at          timestamptz(6) NOT NULL DEFAULT now(),
  expires_at          timestamptz(6) NOT NULL,
  PRIMARY KEY (api_key_id, idempotency_key)
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);

CREATE TABLE audit_log (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  occurred_at   timestamptz(6) NOT NULL DEFAULT now(),
  action        text NOT NULL,
  actor_type    text NOT NULL CHECK (actor_type IN ('api_key', 'system', 'cli')),
  api_key_id    uuid,
  user_id       uuid,
  company_id    uuid,
  target_type   text,
  target_id     text,
  request_id    text,
  details       jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_company ON audit_log (company_id, occurred_at);

-- Refuses any UPDATE or DELETE on the table it guards: audit records are append-only.
CREATE FUNCTION refuse_change_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION refuse_change_append_only();

-- Least privilege for public routes: api_anon reads nothing directly. Roles are cluster-wide,
-- so create it only once; grants are per database and always applied.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'api_anon') THEN
    CREATE ROLE api_anon LOGIN NOINHERIT;
  END IF;
END $$;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM api_anon;
GRANT USAGE ON SCHEMA public TO api_anon;

-- Optional attribution on public routes: resolve a key digest to its ids, nothing more.
CREATE FUNCTION resolve_api_key_attribution(digest text)
RETURNS TABLE (api_key_id uuid, user_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT id, user_id FROM api_keys WHERE key_hash = digest AND revoked_at IS NULL
$$;
REVOKE ALL ON FUNCTION resolve_api_key_attribution(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION resolve_api_key_attribution(text) TO api_anon;

-- Health probe for the anonymous identity: proves the connection works without table access.
CREATE FUNCTION service_health() RETURNS TABLE (database_time timestamptz)
LANGUAGE sql STABLE AS $$ SELECT now() $$;
GRANT EXECUTE ON FUNCTION service_health() TO api_anon;
