-- OAuth 2.1 for hosted agents (issue 31; docs/oauth.md). Three parts:
-- 1. oidc-provider's own state (registered clients, interactions, sessions, codes, refresh
--    tokens, its grants): one row per stored model instance, so every API process on one
--    database shares it and the embedded default keeps it in PGlite.
-- 2. The signing keys of the access tokens, private parts encrypted with ENCRYPTION_KEY.
-- 3. Our grants: what a person consented to (user, client, companies, scopes). Each grant acts
--    through a credential record in api_keys (scopes, mode, rate limit, revocation) that no
--    plaintext key exists for, so every scope, tenancy, rate-limit and idempotency rule that
--    applies to an API key applies to a grant unchanged; the companies it may act on are listed
--    in oauth_grant_companies and checked by admit_request.

CREATE TABLE oauth_states (
  model       text NOT NULL,
  id          text NOT NULL,
  payload     jsonb NOT NULL,
  -- Lookup columns the adapter interface asks for (findByUid, findByUserCode, revokeByGrantId).
  grant_id    text,
  uid         text,
  user_code   text,
  expires_at  timestamptz(6),
  consumed_at timestamptz(6),
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_states_grant ON oauth_states (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_states_uid ON oauth_states (uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_states_user_code ON oauth_states (user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE oauth_signing_keys (
  kid                   text PRIMARY KEY,
  private_jwk_encrypted text NOT NULL,
  created_at            timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE oauth_grants (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id           uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The credential record the grant acts through (never has a plaintext key).
  api_key_id        uuid NOT NULL UNIQUE REFERENCES api_keys(id) ON DELETE CASCADE,
  -- The API key the person signed in with at consent; the grant never holds more than it did.
  signed_in_with_api_key_id uuid REFERENCES api_keys(id) ON DELETE SET NULL,
  -- oidc-provider's grant id: revoking ours revokes its refresh tokens (revokeByGrantId).
  provider_grant_id text NOT NULL UNIQUE,
  client_id         text NOT NULL,
  client_name       text NOT NULL,
  created_at        timestamptz(6) NOT NULL DEFAULT now(),
  revoked_at        timestamptz(6),
  UNIQUE (id, user_id)
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, created_at, id);

-- Tenancy in SQL: a granted company must be one of the grant's user's memberships; losing the
-- membership removes the company from the grant.
CREATE TABLE oauth_grant_companies (
  grant_id   uuid NOT NULL,
  user_id    uuid NOT NULL,
  company_id uuid NOT NULL,
  PRIMARY KEY (grant_id, company_id),
  FOREIGN KEY (grant_id, user_id) REFERENCES oauth_grants(id, user_id) ON DELETE CASCADE,
  FOREIGN KEY (user_id, company_id) REFERENCES memberships(user_id, company_id) ON DELETE CASCADE
);

REVOKE ALL ON oauth_states, oauth_signing_keys, oauth_grants, oauth_grant_companies FROM api_anon;

-- admit_request learns grants: a credential record that belongs to a grant reaches only the
-- grant's companies (returned too, for the companies list), on top of every rule before.
DROP FUNCTION admit_request(text, uuid, uuid, timestamptz);
CREATE FUNCTION admit_request(p_key_hash text, p_api_key_id uuid, p_company_id uuid, p_window_start timestamptz)
RETURNS TABLE (
  api_key_id             uuid,
  name                   text,
  user_id                uuid,
  key_company_id         uuid,
  scopes                 text,
  mode                   text,
  rate_limit_per_minute  integer,
  request_count          integer,
  company_access         boolean,
  grant_id               uuid,
  grant_company_ids      text
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k api_keys%ROWTYPE;
  g_id uuid;
BEGIN
  IF p_key_hash IS NOT NULL THEN
    SELECT * INTO k FROM api_keys WHERE key_hash = p_key_hash AND revoked_at IS NULL;
  ELSE
    SELECT * INTO k FROM api_keys WHERE id = p_api_key_id AND revoked_at IS NULL;
  END IF;
  IF NOT FOUND THEN
    RETURN;
  END IF;

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

  IF request_count = 1 THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = k.id;
  END IF;

  -- One unique-index probe; null for every ordinary API key.
  SELECT g.id INTO g_id FROM oauth_grants g WHERE g.api_key_id = k.id;

  api_key_id := k.id;
  name := k.name;
  user_id := k.user_id;
  key_company_id := k.company_id;
  scopes := array_to_string(k.scopes, ',');
  mode := k.mode;
  rate_limit_per_minute := k.rate_limit_per_minute;
  grant_id := g_id;
  grant_company_ids := CASE WHEN g_id IS NULL THEN NULL ELSE
    (SELECT coalesce(string_agg(gc.company_id::text, ',' ORDER BY gc.company_id), '') FROM oauth_grant_companies gc WHERE gc.grant_id = g_id)
  END;
  company_access := CASE WHEN p_company_id IS NULL THEN NULL ELSE
    (k.company_id IS NULL OR k.company_id = p_company_id)
    AND (g_id IS NULL OR EXISTS (SELECT 1 FROM oauth_grant_companies gc WHERE gc.grant_id = g_id AND gc.company_id = p_company_id))
    AND EXISTS (
      SELECT 1 FROM memberships m JOIN companies co ON co.id = m.company_id
       WHERE m.user_id = k.user_id AND m.company_id = p_company_id
         AND co.archived_at IS NULL AND co.livemode = (k.mode = 'live'))
  END;
  RETURN NEXT;
END $$;
REVOKE ALL ON FUNCTION admit_request(text, uuid, uuid, timestamptz) FROM PUBLIC;
