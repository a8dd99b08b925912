-- The general ledger's order written onto each line when its entry is committed (issue 30): the
-- fiscal year, account number, date, series and number of the line's entry, so one index serves a
-- ledger page in the report's own order (account, date, series, number, entry, line) and a keyset
-- page reads only the lines it returns, at page 1 or page 500 (domain/reports/general-ledger.ts).
-- NULL on a draft's lines: the fiscal year is the key's first column after the company, so a
-- ledger read (which always names the fiscal year) never sees a draft. Committed entries never
-- change and an account's number is fixed (accounts_number_fixed), so the copy never goes stale.
ALTER TABLE journal_lines
  ADD COLUMN fiscal_year_id uuid,
  ADD COLUMN account_number text,
  ADD COLUMN entry_date date,
  ADD COLUMN series text,
  ADD COLUMN entry_number integer;

-- Backfill the lines committed before this migration. journal_lines_guard refuses any change to
-- a committed entry's lines, so it is off for this one statement.
ALTER TABLE journal_lines DISABLE TRIGGER journal_lines_guard;
UPDATE journal_lines l
   SET fiscal_year_id = e.fiscal_year_id, account_number = a.number, entry_date = e.date, series = e.series, entry_number = e.number
  FROM journal_entries e, accounts a
 WHERE e.company_id = l.company_id AND e.id = l.entry_id AND e.status = 'committed'
   AND a.company_id = l.company_id AND a.id = l.account_id;
ALTER TABLE journal_lines ENABLE TRIGGER journal_lines_guard;

-- debit and credit ride along so an opening balance (a sum over an account's earlier lines) is
-- read from the index alone.
CREATE INDEX journal_lines_ledger_order
    ON journal_lines (company_id, fiscal_year_id, account_number, entry_date, series, entry_number, entry_id, line_no)
    INCLUDE (debit, credit)
 WHERE fiscal_year_id IS NOT NULL;

-- The one guarded transition (draft → committed) now also writes the key onto the entry's lines:
-- in the same statement that sums them, before the entry row itself turns committed (so
-- journal_lines_guard still sees a draft). Every path that commits — the API, reversals, SIE
-- import, salary runs, VAT settlements, year-end closing, a bulk UPDATE — writes it alike.
-- Otherwise as in 20261128200000_amount_bounds.
CREATE OR REPLACE FUNCTION journal_entries_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
    WITH keyed AS (
      UPDATE journal_lines l
         SET fiscal_year_id = NEW.fiscal_year_id, account_number = a.number, entry_date = NEW.date,
             series = NEW.series, entry_number = NEW.number
        FROM accounts a
       WHERE l.company_id = NEW.company_id AND l.entry_id = NEW.id AND a.company_id = l.company_id AND a.id = l.account_id
      RETURNING l.debit, l.credit)
    SELECT coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*) INTO debits, credits, line_count FROM keyed;
    IF line_count < 2 OR debits <> credits THEN
      RAISE EXCEPTION 'journal entry % does not balance (debit %, credit %, % lines)', NEW.id, debits, credits, line_count
        USING ERRCODE = 'check_violation';
    END IF;
    -- The bound is MAX_COMMITTED_DEBIT_ORE in domain/ledger/amount-limits.ts (a test commits up to it
    -- and one öre past it). program_limit_exceeded (54000) is how domain/ledger tells it apart.
    UPDATE companies SET committed_debit = committed_debit + debits
     WHERE id = NEW.company_id AND committed_debit + debits <= 4000000000000000;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'committing journal entry % would take the committed debits of company % past 4000000000000000 öre', NEW.id, NEW.company_id
        USING ERRCODE = 'program_limit_exceeded';
    END IF;
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END $$;
