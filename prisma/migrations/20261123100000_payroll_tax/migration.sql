-- Payroll and tax returns (issue 16). Company-owned rows reference each other through composite
-- (company_id, id) keys; booked salary runs and submitted returns are immutable by trigger (23514).

CREATE TABLE employees (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id           uuid NOT NULL REFERENCES companies(id),
  name                 text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- The personal identity number is personal data: stored encrypted (AES-256-GCM, like webhook
  -- secrets), with the birth date and the masked form beside it for what needs no plaintext.
  pin_encrypted        text NOT NULL,
  pin_masked           text NOT NULL CHECK (pin_masked ~ '^\d{8}-\*{4}$'),
  birth_date           date NOT NULL,
  employment_start     date NOT NULL,
  employment_end       date CHECK (employment_end IS NULL OR employment_end >= employment_start),
  monthly_salary       bigint NOT NULL CHECK (monthly_salary >= 0),
  -- Preliminary tax: a percentage in hundredths of a percent, or a fixed amount a month (öre).
  tax_rate_hundredths  integer CHECK (tax_rate_hundredths BETWEEN 0 AND 10000),
  tax_amount           bigint CHECK (tax_amount >= 0),
  created_at           timestamptz(6) NOT NULL DEFAULT now(),
  updated_at           timestamptz(6) NOT NULL DEFAULT now(),
  CHECK ((tax_rate_hundredths IS NULL) <> (tax_amount IS NULL)),
  UNIQUE (company_id, id)
);

CREATE TABLE salary_runs (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id        uuid NOT NULL REFERENCES companies(id),
  period            date NOT NULL CHECK (extract(day FROM period) = 1),
  pay_date          date NOT NULL,
  status            text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'approved', 'booked', 'cancelled')),
  gross             bigint NOT NULL CHECK (gross >= 0),
  tax               bigint NOT NULL CHECK (tax >= 0),
  contributions     bigint NOT NULL CHECK (contributions >= 0),
  net               bigint NOT NULL,
  journal_entry_id  uuid,
  approved_at       timestamptz(6),
  booked_at         timestamptz(6),
  cancelled_at      timestamptz(6),
  created_at        timestamptz(6) NOT NULL DEFAULT now(),
  CHECK (net = gross - tax),
  CHECK ((status = 'booked') = (journal_entry_id IS NOT NULL AND booked_at IS NOT NULL)),
  UNIQUE (company_id, id),
  FOREIGN KEY (company_id, journal_entry_id) REFERENCES journal_entries (company_id, id)
);
-- One live run per month; cancelled runs stay as history.
CREATE UNIQUE INDEX salary_runs_one_per_month ON salary_runs (company_id, period) WHERE status <> 'cancelled';

CREATE TABLE salary_run_lines (
  company_id                  uuid NOT NULL,
  salary_run_id               uuid NOT NULL,
  employee_id                 uuid NOT NULL,
  gross                       bigint NOT NULL CHECK (gross >= 0),
  tax                         bigint NOT NULL CHECK (tax >= 0),
  contributions               bigint NOT NULL CHECK (contributions >= 0),
  contribution_rate_hundredths integer NOT NULL CHECK (contribution_rate_hundredths BETWEEN 0 AND 10000),
  net                         bigint NOT NULL,
  CHECK (net = gross - tax),
  PRIMARY KEY (company_id, salary_run_id, employee_id),
  FOREIGN KEY (company_id, salary_run_id) REFERENCES salary_runs (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, employee_id) REFERENCES employees (company_id, id)
);

-- A booked run is in the books: it never changes again, nor do its lines.
CREATE FUNCTION salary_runs_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status IN ('booked', 'cancelled') THEN
      RAISE EXCEPTION 'salary run % is %; it cannot be deleted', OLD.id, OLD.status USING ERRCODE = 'check_violation';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status IN ('booked', 'cancelled') THEN
    RAISE EXCEPTION 'salary run % is %; it cannot change', OLD.id, OLD.status USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER salary_runs_guard BEFORE UPDATE OR DELETE ON salary_runs
  FOR EACH ROW EXECUTE FUNCTION salary_runs_guard();

CREATE FUNCTION salary_run_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  run_company uuid;
  run_id uuid;
BEGIN
  IF TG_OP = 'INSERT' THEN run_company := NEW.company_id; run_id := NEW.salary_run_id;
  ELSE run_company := OLD.company_id; run_id := OLD.salary_run_id; END IF;
  IF EXISTS (SELECT 1 FROM salary_runs r WHERE r.company_id = run_company AND r.id = run_id AND r.status IN ('approved', 'booked', 'cancelled')) THEN
    RAISE EXCEPTION 'salary run % is no longer a draft; its lines cannot change', run_id USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER salary_run_lines_guard BEFORE INSERT OR UPDATE OR DELETE ON salary_run_lines
  FOR EACH ROW EXECUTE FUNCTION salary_run_lines_guard();

-- Employer declarations (arbetsgivardeklaration, AGI), one version per month; a correction of a
-- submitted month is a new version pointing at the one it corrects.
CREATE TABLE agi_declarations (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id      uuid NOT NULL REFERENCES companies(id),
  period          date NOT NULL CHECK (extract(day FROM period) = 1),
  version         integer NOT NULL CHECK (version > 0),
  status          text NOT NULL DEFAULT 'generated' CHECK (status IN ('generated', 'submitted')),
  gross           bigint NOT NULL CHECK (gross >= 0),
  tax             bigint NOT NULL CHECK (tax >= 0),
  contributions   bigint NOT NULL CHECK (contributions >= 0),
  individuals     jsonb NOT NULL,
  corrects_id     uuid,
  generated_at    timestamptz(6) NOT NULL DEFAULT now(),
  submitted_at    timestamptz(6),
  CHECK ((status = 'submitted') = (submitted_at IS NOT NULL)),
  UNIQUE (company_id, id),
  UNIQUE (company_id, period, version),
  FOREIGN KEY (company_id, corrects_id) REFERENCES agi_declarations (company_id, id)
);

CREATE TABLE vat_returns (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id      uuid NOT NULL REFERENCES companies(id),
  period_start    date NOT NULL,
  period_end      date NOT NULL CHECK (period_end >= period_start),
  status          text NOT NULL DEFAULT 'generated' CHECK (status IN ('generated', 'submitted')),
  boxes           jsonb NOT NULL,
  output_vat      bigint NOT NULL,
  input_vat       bigint NOT NULL,
  net_vat         bigint NOT NULL,
  generated_at    timestamptz(6) NOT NULL DEFAULT now(),
  submitted_at    timestamptz(6),
  CHECK ((status = 'submitted') = (submitted_at IS NOT NULL)),
  CHECK (net_vat = output_vat - input_vat),
  UNIQUE (company_id, id),
  UNIQUE (company_id, period_start, period_end)
);

-- A submitted return is a filing: frozen. Regenerating replaces only unsubmitted ones.
CREATE FUNCTION submitted_filing_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'submitted' THEN
    RAISE EXCEPTION '% % is submitted and cannot be % ', TG_TABLE_NAME, OLD.id, lower(TG_OP) || 'd'
      USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER agi_declarations_guard BEFORE UPDATE OR DELETE ON agi_declarations
  FOR EACH ROW EXECUTE FUNCTION submitted_filing_guard();
CREATE TRIGGER vat_returns_guard BEFORE UPDATE OR DELETE ON vat_returns
  FOR EACH ROW EXECUTE FUNCTION submitted_filing_guard();

REVOKE ALL ON employees, salary_runs, salary_run_lines, agi_declarations, vat_returns FROM api_anon;
