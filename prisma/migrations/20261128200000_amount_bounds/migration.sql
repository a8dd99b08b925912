-- Amounts the books can always carry (issue 28; the reasoning is in docs/amounts.md). Every
-- amount a caller sends is at most 10^13 öre (checked at the edge); the company's committed
-- debits over all time are at most 4·10^15 öre, counted here at the one guarded transition
-- (draft → committed) so every path that commits (API, reversals, SIE import, salary runs,
-- VAT settlements, year-end closing) is held to it. Any sum a report forms then stays below
-- 2^53-1, the largest integer a JSON number carries exactly.
ALTER TABLE companies ADD COLUMN committed_debit bigint NOT NULL DEFAULT 0 CHECK (committed_debit >= 0);

UPDATE companies c SET committed_debit = s.debit
  FROM (SELECT l.company_id, sum(l.debit)::bigint AS debit
          FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
         WHERE e.status = 'committed'
         GROUP BY l.company_id) s
 WHERE c.id = s.company_id;

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
    SELECT coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*) INTO debits, credits, line_count
      FROM journal_lines WHERE company_id = NEW.company_id AND entry_id = NEW.id;
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
