-- The books (DESIGN.md §14): chart of accounts, fiscal years, monthly periods, journal entries
-- (verifikationer) and their lines. Every company-owned table carries company_id and every
-- reference between company-owned rows is a composite (company_id, id) foreign key, so a line can
-- never point at another company's account or entry, whatever the code does.

CREATE TABLE accounts (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id  uuid NOT NULL REFERENCES companies(id),
  -- BAS: four digits, classes 1-8.
  number      text NOT NULL CHECK (number ~ '^[1-8][0-9]{3}$'),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- The type follows the class (first digit); derived here so it can never disagree.
  type        text NOT NULL GENERATED ALWAYS AS (
                CASE left(number, 1)
                  WHEN '1' THEN 'asset'
                  WHEN '2' THEN 'equity_liability'
                  WHEN '3' THEN 'revenue'
                  WHEN '8' THEN 'financial'
                  ELSE 'expense'
                END) STORED,
  vat_code    text CHECK (vat_code IN ('standard_25', 'reduced_12', 'reduced_6', 'exempt')),
  active      boolean NOT NULL DEFAULT true,
  created_at  timestamptz(6) NOT NULL DEFAULT now(),
  updated_at  timestamptz(6) NOT NULL DEFAULT now(),
  UNIQUE (company_id, number),
  UNIQUE (company_id, id)
);

-- The number is the account's identity in the API and in every line that used it.
CREATE FUNCTION accounts_number_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.number <> OLD.number OR NEW.company_id <> OLD.company_id THEN
    RAISE EXCEPTION 'account % cannot change its number or company', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER accounts_number_fixed BEFORE UPDATE ON accounts
  FOR EACH ROW EXECUTE FUNCTION accounts_number_fixed();

CREATE TABLE fiscal_years (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id  uuid NOT NULL REFERENCES companies(id),
  start_date  date NOT NULL CHECK (extract(day FROM start_date) = 1),
  -- Inclusive; the last day of a month, 1-18 months after start_date (Bokföringslagen 3 kap.).
  end_date    date NOT NULL CHECK ((end_date + 1) = date_trunc('month', end_date + 1)::date),
  closed_at   timestamptz(6),
  created_at  timestamptz(6) NOT NULL DEFAULT now(),
  CHECK (end_date > start_date AND end_date < (start_date + interval '18 months')::date),
  UNIQUE (company_id, id),
  UNIQUE (company_id, start_date)
);

CREATE TABLE periods (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id      uuid NOT NULL,
  fiscal_year_id  uuid NOT NULL,
  start_date      date NOT NULL,
  end_date        date NOT NULL CHECK (end_date >= start_date),
  locked_at       timestamptz(6),
  UNIQUE (company_id, id),
  UNIQUE (company_id, start_date),
  FOREIGN KEY (company_id, fiscal_year_id) REFERENCES fiscal_years (company_id, id) ON DELETE CASCADE
);
CREATE INDEX periods_by_year ON periods (company_id, fiscal_year_id, start_date);

CREATE TABLE journal_entries (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id             uuid NOT NULL REFERENCES companies(id),
  series                 text NOT NULL DEFAULT 'A' CHECK (series ~ '^[A-Z]{1,4}$'),
  date                   date NOT NULL,
  description            text NOT NULL CHECK (length(description) BETWEEN 1 AND 500),
  status                 text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'committed')),
  currency               text NOT NULL DEFAULT 'SEK' CHECK (currency = 'SEK'),
  -- Set at commit: the voucher number within (fiscal year, series), and where it was booked.
  fiscal_year_id         uuid,
  period_id              uuid,
  number                 integer CHECK (number > 0),
  committed_at           timestamptz(6),
  -- A reversal points at the entry it reverses; at most one reversal per entry (UNIQUE below).
  reverses_id            uuid,
  created_by_api_key_id  uuid,
  created_at             timestamptz(6) NOT NULL DEFAULT now(),
  updated_at             timestamptz(6) NOT NULL DEFAULT now(),
  CHECK ((status = 'committed') = (number IS NOT NULL AND fiscal_year_id IS NOT NULL
                                   AND period_id IS NOT NULL AND committed_at IS NOT NULL)),
  UNIQUE (company_id, id),
  UNIQUE (company_id, fiscal_year_id, series, number),
  UNIQUE (company_id, reverses_id),
  FOREIGN KEY (company_id, fiscal_year_id) REFERENCES fiscal_years (company_id, id),
  FOREIGN KEY (company_id, period_id) REFERENCES periods (company_id, id),
  FOREIGN KEY (company_id, reverses_id) REFERENCES journal_entries (company_id, id)
);
-- The entries list walks (date, created_at, id); reports find committed entries by date.
CREATE INDEX journal_entries_list ON journal_entries (company_id, date DESC, created_at DESC, id DESC);

CREATE TABLE journal_lines (
  company_id   uuid NOT NULL,
  entry_id     uuid NOT NULL,
  line_no      integer NOT NULL CHECK (line_no > 0),
  account_id   uuid NOT NULL,
  -- Integer öre; exactly one side is non-zero.
  debit        bigint NOT NULL DEFAULT 0 CHECK (debit >= 0),
  credit       bigint NOT NULL DEFAULT 0 CHECK (credit >= 0),
  description  text CHECK (description IS NULL OR length(description) <= 500),
  CHECK ((debit > 0) <> (credit > 0)),
  PRIMARY KEY (company_id, entry_id, line_no),
  FOREIGN KEY (company_id, entry_id) REFERENCES journal_entries (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id)
);
CREATE INDEX journal_lines_by_account ON journal_lines (company_id, account_id);

-- One counter row per (company, fiscal year, series). The commit increments it in its own
-- transaction, so the row stays locked until commit or rollback: numbers are gapless (a
-- rolled-back commit rolls the counter back too) and unique under concurrent commits.
CREATE TABLE journal_series_counters (
  company_id      uuid NOT NULL,
  fiscal_year_id  uuid NOT NULL,
  series          text NOT NULL,
  last_number     integer NOT NULL CHECK (last_number >= 0),
  PRIMARY KEY (company_id, fiscal_year_id, series),
  FOREIGN KEY (company_id, fiscal_year_id) REFERENCES fiscal_years (company_id, id)
);

-- Bokföringslagen: a committed verification never changes and is never deleted; corrections
-- are new entries (reversals). Every entry is born a draft (reversals and imports too), and
-- committing is the one guarded transition: it is refused unless the lines balance.
CREATE FUNCTION journal_entries_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  debits bigint;
  credits bigint;
  line_count integer;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'draft' THEN
      RAISE EXCEPTION 'journal entries are created as drafts and committed afterwards' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF OLD.status = 'committed' THEN
      RAISE EXCEPTION 'journal entry % is committed and cannot be deleted', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status = 'committed' THEN
    RAISE EXCEPTION 'journal entry % is committed and cannot be changed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status = 'committed' THEN
    SELECT coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*) INTO debits, credits, line_count
      FROM journal_lines WHERE company_id = NEW.company_id AND entry_id = NEW.id;
    IF line_count < 2 OR debits <> credits THEN
      RAISE EXCEPTION 'journal entry % does not balance (debit %, credit %, % lines)', NEW.id, debits, credits, line_count
        USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END $$;
CREATE TRIGGER journal_entries_guard BEFORE INSERT OR UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION journal_entries_guard();

-- Lines of a committed entry are as fixed as the entry.
CREATE FUNCTION journal_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target_company uuid;
  target_entry uuid;
BEGIN
  IF TG_OP = 'INSERT' THEN
    target_company := NEW.company_id; target_entry := NEW.entry_id;
  ELSE
    target_company := OLD.company_id; target_entry := OLD.entry_id;
  END IF;
  IF EXISTS (SELECT 1 FROM journal_entries e
              WHERE e.company_id = target_company AND e.id = target_entry AND e.status = 'committed') THEN
    RAISE EXCEPTION 'journal entry % is committed; its lines cannot change', target_entry USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER journal_lines_guard BEFORE INSERT OR UPDATE OR DELETE ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION journal_lines_guard();

REVOKE ALL ON accounts, fiscal_years, periods, journal_entries, journal_lines, journal_series_counters FROM api_anon;
