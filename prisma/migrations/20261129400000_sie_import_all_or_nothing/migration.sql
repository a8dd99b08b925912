-- An SIE import is all or nothing (issue 27, docs/sie.md "All or nothing"). The import writes in
-- batches, each committed with its checkpoint; until the last batch, everything it wrote is
-- invisible to every report and list, and a failure or a cancel removes it again.
--
-- Every row an import creates (fiscal years, accounts, dimensions, objects, journal entries) names
-- the import (its operation) in import_id. While pending_imports holds that operation, the rows are
-- hidden, and the immutability triggers let exactly those committed entries (with their lines and
-- objects) be deleted. The transaction of the last batch deletes the pending row and clears
-- import_id on the small tables; journal entries keep it (clearing it would rewrite every
-- imported entry), and are visible because the pending row is gone.

CREATE TABLE pending_imports (
  company_id              uuid NOT NULL,
  operation_id            uuid NOT NULL,
  -- The year the vouchers go into, and the year of the opening entry: commits dated in them wait
  -- for the import (PERIOD_LOCKED), so no one else's voucher takes a number the import reserved.
  fiscal_year_id          uuid NOT NULL,
  opening_fiscal_year_id  uuid,
  created_at              timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, operation_id),
  FOREIGN KEY (company_id, operation_id) REFERENCES operations (company_id, id)
);

ALTER TABLE fiscal_years ADD COLUMN import_id uuid;
ALTER TABLE fiscal_years ADD FOREIGN KEY (company_id, import_id) REFERENCES operations (company_id, id);
ALTER TABLE accounts ADD COLUMN import_id uuid;
ALTER TABLE accounts ADD FOREIGN KEY (company_id, import_id) REFERENCES operations (company_id, id);
ALTER TABLE dimensions ADD COLUMN import_id uuid;
ALTER TABLE dimensions ADD FOREIGN KEY (company_id, import_id) REFERENCES operations (company_id, id);
ALTER TABLE dimension_objects ADD COLUMN import_id uuid;
ALTER TABLE dimension_objects ADD FOREIGN KEY (company_id, import_id) REFERENCES operations (company_id, id);
ALTER TABLE journal_entries ADD COLUMN import_id uuid;
ALTER TABLE journal_entries ADD FOREIGN KEY (company_id, import_id) REFERENCES operations (company_id, id);
-- Removal and the announcement of the imported entries walk them by import.
CREATE INDEX journal_entries_by_import ON journal_entries (company_id, import_id, id) WHERE import_id IS NOT NULL;

-- True while the entry belongs to an import that has not completed.
CREATE FUNCTION journal_entry_importing(p_company uuid, p_entry uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM journal_entries e JOIN pending_imports p ON p.company_id = e.company_id AND p.operation_id = e.import_id
                  WHERE e.company_id = p_company AND e.id = p_entry)
$$;

-- Deleting a journal entry gets its own trigger, so the rule lives in one function that later
-- migrations replacing journal_entries_guard (the commit transition) leave alone: a committed
-- entry may be deleted only while its import is pending, and its debits then leave the company's
-- committed total again. journal_entries_guard keeps firing on INSERT and UPDATE only (its DELETE
-- branch is no longer reached).
DROP TRIGGER journal_entries_guard ON journal_entries;
CREATE TRIGGER journal_entries_guard BEFORE INSERT OR UPDATE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION journal_entries_guard();

CREATE FUNCTION journal_entries_delete_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  debits bigint;
BEGIN
  IF OLD.status = 'committed' THEN
    IF OLD.import_id IS NULL OR NOT EXISTS (SELECT 1 FROM pending_imports p WHERE p.company_id = OLD.company_id AND p.operation_id = OLD.import_id) THEN
      RAISE EXCEPTION 'journal entry % is committed and cannot be deleted', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    SELECT coalesce(sum(debit), 0) INTO debits FROM journal_lines WHERE company_id = OLD.company_id AND entry_id = OLD.id;
    UPDATE companies SET committed_debit = committed_debit - debits WHERE id = OLD.company_id;
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER journal_entries_delete_guard BEFORE DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION journal_entries_delete_guard();

-- Lines of a committed entry are as fixed as the entry, except when the entry of a pending import
-- is removed (the lines go with it by ON DELETE CASCADE).
CREATE OR REPLACE FUNCTION journal_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
              WHERE e.company_id = target_company AND e.id = target_entry AND e.status = 'committed')
     AND NOT (TG_OP = 'DELETE' AND journal_entry_importing(target_company, target_entry)) THEN
    RAISE EXCEPTION 'journal entry % is committed; its lines cannot change', target_entry USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION journal_line_objects_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
              WHERE e.company_id = target_company AND e.id = target_entry AND e.status = 'committed')
     AND NOT (TG_OP = 'DELETE' AND journal_entry_importing(target_company, target_entry)) THEN
    RAISE EXCEPTION 'journal entry % is committed; the objects on its lines cannot change', target_entry
      USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;

REVOKE ALL ON pending_imports FROM api_anon;
