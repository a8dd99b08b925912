-- Tax returns Skatteverket would accept (issue 26): VAT codes for every box of the VAT return,
-- employer contribution rates as dated rows, unique personal identity numbers, the AGI's
-- specification numbers and workplace, and corrections of VAT returns as linked versions.

-- 1. VAT codes: every box of the return has a source (domain/tax/vat-boxes.ts).
ALTER TABLE accounts DROP CONSTRAINT accounts_vat_code_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_vat_code_check CHECK (vat_code IN (
  'standard_25', 'reduced_12', 'reduced_6', 'exempt', 'withdrawal', 'margin_scheme', 'rental_voluntary',
  'eu_goods_purchase', 'eu_service_purchase', 'non_eu_service_purchase', 'se_reverse_charge_goods_purchase',
  'se_reverse_charge_service_purchase', 'import_goods', 'eu_goods_sale', 'export_goods', 'triangular_purchase',
  'triangular_sale', 'eu_service_sale', 'export_services', 'se_reverse_charge_sale'));

-- 2. Employer contributions (arbetsgivaravgifter) as dated rows, each citing the law it comes from.
-- A pay date takes the applicable rows in precedence order; the first whose age rule fits the
-- employee applies, up to its monthly cap, and pay above the cap takes the next one that fits.
-- Ages are "vid årets ingång" (the age reached by the end of the year before the pay year).
CREATE TABLE employer_contribution_rates (
  id               text PRIMARY KEY,
  valid_from       date NOT NULL,
  valid_to         date,
  born_to          integer,
  age_from         integer CHECK (age_from >= 0),
  age_to           integer,
  rate_hundredths  integer NOT NULL CHECK (rate_hundredths BETWEEN 0 AND 10000),
  cap_per_month    bigint CHECK (cap_per_month > 0),
  precedence       integer NOT NULL,
  source           text NOT NULL CHECK (length(source) > 0),
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK (age_to IS NULL OR (age_from IS NOT NULL AND age_to > age_from))
);
INSERT INTO employer_contribution_rates (id, valid_from, valid_to, born_to, age_from, age_to, rate_hundredths, cap_per_month, precedence, source) VALUES
  ('born-1937-or-earlier', '2023-01-01', NULL, 1937, NULL, NULL, 0, NULL, 10,
   'No arbetsgivaravgifter and, since 1 July 2019, no särskild löneskatt on pay to people born 1937 or earlier'),
  ('pension-only-66', '2023-01-01', '2025-12-31', NULL, 66, NULL, 1021, NULL, 20,
   'SAL (2000:980) 2 kap. 27 § as in force 2023-2025: fyllt 66 år vid årets ingång, only ålderspensionsavgiften (10,21 %, 2 kap. 26 §)'),
  ('pension-only-67', '2026-01-01', '2031-12-31', NULL, 67, NULL, 1021, NULL, 20,
   'SAL (2000:980) 2 kap. 27 § from 2026 tied to riktåldern för pension (prop. 2021/22:181), 67 år for 2026-2031 (SFS 2019:780 and later förordningar)'),
  ('youth-2026', '2026-04-01', '2027-09-30', NULL, 18, 23, 2081, 2500000, 30,
   'SFS 2026:100 2 §: fyllt 18 men inte 23 år vid årets ingång, ålderspensionsavgiften 10,21 % + hälften av övriga 21,21 % (10,60 %), up to 25 000 kr a month'),
  ('standard', '2023-01-01', NULL, NULL, NULL, NULL, 3142, NULL, 100,
   'SAL (2000:980) 2 kap. 26 § (19,80 %) + lag (1994:1920) om allmän löneavgift 3 § (11,62 %)');
REVOKE ALL ON employer_contribution_rates FROM api_anon;

-- 3. Employees: a personal identity number once per company, a stable specification number
-- (the AGI's FK570) and the workplace the AGI declares (FK245, FK246).
-- The number is stored encrypted with a random nonce, so uniqueness is on a keyed digest of it
-- (HMAC-SHA256 under the encryption key): equal numbers, equal digests, and no way back without
-- the key. Rows from before this migration get theirs at start-up (payroll/pin-digest.ts); the
-- NOT VALID check holds every new and changed row to having one.
ALTER TABLE employees
  ADD COLUMN pin_digest text CHECK (pin_digest ~ '^[0-9a-f]{64}$'),
  ADD COLUMN specification_number integer CHECK (specification_number > 0),
  ADD COLUMN workplace_address text CHECK (length(workplace_address) BETWEEN 1 AND 200),
  ADD COLUMN workplace_city text CHECK (length(workplace_city) BETWEEN 1 AND 200);
UPDATE employees e SET specification_number = n.rn
  FROM (SELECT id, row_number() OVER (PARTITION BY company_id ORDER BY created_at, id) AS rn FROM employees) n
 WHERE n.id = e.id;
-- 0 asks the trigger below for the company's next number (the CHECK holds after it ran).
ALTER TABLE employees ALTER COLUMN specification_number SET NOT NULL, ALTER COLUMN specification_number SET DEFAULT 0;
ALTER TABLE employees ADD CONSTRAINT employees_specification_number_key UNIQUE (company_id, specification_number);
ALTER TABLE employees ADD CONSTRAINT employees_pin_digest_key UNIQUE (company_id, pin_digest);
ALTER TABLE employees ADD CONSTRAINT employees_pin_digest_present CHECK (pin_digest IS NOT NULL) NOT VALID;

-- The next specification number of the company, taken under a per-company lock so concurrent
-- inserts never pick the same one; once given it never changes (a correction must repeat it).
CREATE FUNCTION employees_specification_number() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.specification_number IS DISTINCT FROM OLD.specification_number THEN
      RAISE EXCEPTION 'employee %: the specification number never changes', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.specification_number IS NULL OR NEW.specification_number = 0 THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('employees.specification_number:' || NEW.company_id::text, 0));
    SELECT coalesce(max(specification_number), 0) + 1 INTO NEW.specification_number FROM employees WHERE company_id = NEW.company_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER employees_specification_number BEFORE INSERT OR UPDATE ON employees
  FOR EACH ROW EXECUTE FUNCTION employees_specification_number();

-- 4. AGI: who Skatteverket may contact about it, and the employer part's sums in whole kronor
-- as the file declares them (FK487, FK497); at most one unsubmitted version per month.
ALTER TABLE agi_declarations
  ADD COLUMN contact jsonb,
  ADD COLUMN declared_tax bigint CHECK (declared_tax >= 0 AND declared_tax % 100 = 0),
  ADD COLUMN declared_contributions bigint CHECK (declared_contributions >= 0 AND declared_contributions % 100 = 0);
CREATE UNIQUE INDEX agi_declarations_one_unsubmitted ON agi_declarations (company_id, period) WHERE status = 'generated';

-- 5. VAT returns: versions (a correction of a submitted return references the one it replaces),
-- the settlement entry its submission booked (momsavräkning), at most one unsubmitted version;
-- declared amounts are whole kronor (returns from before this migration kept öre: NOT VALID).
ALTER TABLE vat_returns DROP CONSTRAINT vat_returns_company_id_period_start_period_end_key;
ALTER TABLE vat_returns
  ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version > 0),
  ADD COLUMN corrects_id uuid,
  ADD COLUMN settlement jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN settlement_entry_id uuid,
  ADD CONSTRAINT vat_returns_version_key UNIQUE (company_id, period_start, period_end, version),
  ADD CONSTRAINT vat_returns_corrects_fkey FOREIGN KEY (company_id, corrects_id) REFERENCES vat_returns (company_id, id),
  ADD CONSTRAINT vat_returns_settlement_entry_fkey FOREIGN KEY (company_id, settlement_entry_id) REFERENCES journal_entries (company_id, id),
  ADD CONSTRAINT vat_returns_settled_when_submitted CHECK (status = 'submitted' OR settlement_entry_id IS NULL),
  ADD CONSTRAINT vat_returns_whole_kronor CHECK (output_vat % 100 = 0 AND input_vat % 100 = 0) NOT VALID;
CREATE UNIQUE INDEX vat_returns_one_unsubmitted ON vat_returns (company_id, period_start, period_end) WHERE status = 'generated';
