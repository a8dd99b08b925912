-- Webhook subscriptions, the event outbox and deliveries (spec "Webhook", "Webhook delivery",
-- "States and transitions"). The invariants live here so no code path can break them.

CREATE TABLE webhooks (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id            uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  event_type            text NOT NULL,
  webhook_url           text NOT NULL CHECK (webhook_url LIKE 'https://%'),
  name                  text NOT NULL,
  description           text NOT NULL DEFAULT '',
  -- AES-256-GCM ciphertext of the signing secret; the plaintext is shown once, at creation.
  secret_encrypted      text NOT NULL,
  created_by_api_key_id uuid,
  api_version_pinned    text NOT NULL,
  disabled_at           timestamptz(6),
  disabled_reason       text,
  created_at            timestamptz(6) NOT NULL DEFAULT now(),
  updated_at            timestamptz(6) NOT NULL DEFAULT now(),
  CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
);
CREATE INDEX webhooks_fanout ON webhooks (company_id, event_type) WHERE disabled_at IS NULL;

-- The outbox: written in the same transaction as the change it describes. Events and their
-- deliveries are the audit trail, so they keep their company from being deleted (companies are
-- archived, never deleted).
CREATE TABLE events (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id  uuid NOT NULL REFERENCES companies(id),
  type        text NOT NULL,
  api_version text NOT NULL,
  livemode    boolean NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX events_company ON events (company_id, created_at);

CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id       uuid REFERENCES webhooks(id) ON DELETE SET NULL,
  company_id       uuid NOT NULL,
  event_id         uuid REFERENCES events(id),
  event_type       text NOT NULL,
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'in_flight', 'delivered', 'failed', 'dead')),
  attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at  timestamptz(6) NOT NULL DEFAULT now(),
  response_status  integer,
  response_body    text CHECK (response_body IS NULL OR octet_length(response_body) <= 8192),
  response_headers jsonb,
  last_error       text,
  dead_reason      text,
  is_test          boolean NOT NULL DEFAULT false,
  retry_of         uuid REFERENCES webhook_deliveries(id),
  created_at       timestamptz(6) NOT NULL DEFAULT now(),
  updated_at       timestamptz(6) NOT NULL DEFAULT now(),
  CHECK ((status = 'dead') = (dead_reason IS NOT NULL))
);
-- The claim reads only due, claimable rows; terminal rows never leave the table, so the index
-- must exclude them or the claim slows down as history grows (DESIGN.md §12).
CREATE INDEX webhook_deliveries_claim ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'failed') AND webhook_id IS NOT NULL;
CREATE INDEX webhook_deliveries_stuck ON webhook_deliveries (updated_at) WHERE status = 'in_flight';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, id DESC);

-- Terminal rows are the audit trail: immutable and undeletable. The one change let through is
-- ON DELETE SET NULL of the parent webhook (webhook_id becoming null, nothing else), without
-- which no webhook with history could ever be deleted.
CREATE FUNCTION webhook_deliveries_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status IN ('delivered', 'dead') THEN
      RAISE EXCEPTION 'webhook delivery % is terminal (%) and cannot be deleted', OLD.id, OLD.status
        USING ERRCODE = 'check_violation';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status IN ('delivered', 'dead') THEN
    -- Only the FK action: webhook_id goes null because that webhook is gone, nothing else moves.
    IF OLD.webhook_id IS NOT NULL AND NEW.webhook_id IS NULL
       AND (to_jsonb(NEW) - 'webhook_id') = (to_jsonb(OLD) - 'webhook_id')
       AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = OLD.webhook_id) THEN
      RETURN NEW;
    END IF;
    RAISE EXCEPTION 'webhook delivery % is terminal (%) and cannot be updated', OLD.id, OLD.status
      USING ERRCODE = 'check_violation';
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END $$;
CREATE TRIGGER webhook_deliveries_guard BEFORE UPDATE OR DELETE ON webhook_deliveries
  FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_guard();

-- A delivery belongs to its webhook's company and carries its webhook's event type, and its
-- event (when it has one) is of the same company; rows whose webhook is gone skip the webhook check.
CREATE FUNCTION webhook_deliveries_same_company() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.webhook_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM webhooks w WHERE w.id = NEW.webhook_id AND w.company_id = NEW.company_id
  ) THEN
    RAISE EXCEPTION 'webhook delivery company % differs from its webhook''s company', NEW.company_id
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.webhook_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM webhooks w WHERE w.id = NEW.webhook_id AND w.event_type = NEW.event_type
  ) THEN
    RAISE EXCEPTION 'webhook delivery event type % differs from its webhook''s', NEW.event_type
      USING ERRCODE = 'check_violation';
  END IF;
  -- Checked when the event link is made or moved, not when the FK action nulls webhook_id.
  IF NEW.event_id IS NOT NULL
     AND (TG_OP = 'INSERT' OR NEW.event_id IS DISTINCT FROM OLD.event_id OR NEW.company_id IS DISTINCT FROM OLD.company_id)
     AND NOT EXISTS (
    SELECT 1 FROM events e WHERE e.id = NEW.event_id AND e.company_id = NEW.company_id
  ) THEN
    RAISE EXCEPTION 'webhook delivery company % differs from its event''s company', NEW.company_id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER webhook_deliveries_same_company
  BEFORE INSERT OR UPDATE OF webhook_id, company_id, event_id, event_type ON webhook_deliveries
  FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_same_company();

-- A webhook cannot move to another company while it has deliveries.
CREATE FUNCTION webhooks_company_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.company_id <> OLD.company_id OR NEW.event_type <> OLD.event_type THEN
    RAISE EXCEPTION 'a webhook''s company and event type cannot change' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER webhooks_company_immutable BEFORE UPDATE ON webhooks
  FOR EACH ROW EXECUTE FUNCTION webhooks_company_immutable();

REVOKE ALL ON webhooks, events, webhook_deliveries FROM api_anon;
