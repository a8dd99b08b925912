-- The commit transition (draft → committed) checked and keyed once per statement instead of once
-- per entry (issue 27: on PGlite an SIE batch's commit spent 5-10 ms per entry in the trigger's
-- statements while every other request waited). The rules are those of 20261129500000_general_ledger_key:
-- a committed entry never changes; it balances and has at least two lines; its lines get the
-- general ledger key; the company's committed debits stay within the bound. Only the shape moves:
-- journal_entries_guard (BEFORE, per row) keeps the per-row rules, and journal_entries_commit
-- (AFTER, per statement, over the statement's new rows) does the set work for every entry the
-- statement committed — one entry for the API's commit, a batch for an SIE import, alike.

CREATE OR REPLACE FUNCTION journal_entries_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'draft' THEN
      RAISE EXCEPTION 'journal entries are created as drafts and committed afterwards' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  -- So a committed row in journal_entries_commit's new rows is one this statement committed.
  IF OLD.status = 'committed' THEN
    RAISE EXCEPTION 'journal entry % is committed and cannot be changed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END $$;

CREATE FUNCTION journal_entries_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target record;
  unbalanced record;
  company record;
BEGIN
  -- The key onto the committed entries' lines, for the entries that lack it on some line (an SIE
  -- batch inserts its lines keyed, in the transaction that commits them: a rewrite of every line
  -- was most of its commit). journal_lines_guard lets exactly this write through. Every query
  -- here goes from the statement's rows to one entry's lines by their primary key (LATERAL, and
  -- the UPDATE per entry): a join the planner may order is planned once per session for the first
  -- statement's row count, and a bulk commit of 4,000 entries then took 11 s instead of 1.
  FOR target IN
    SELECT e.company_id, e.id, e.fiscal_year_id, e.date, e.series, e.number
      FROM committed_rows e
     CROSS JOIN LATERAL (SELECT 1 FROM journal_lines l JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
                          WHERE l.company_id = e.company_id AND l.entry_id = e.id
                            AND (l.fiscal_year_id, l.account_number, l.entry_date, l.series, l.entry_number)
                                IS DISTINCT FROM (e.fiscal_year_id, a.number, e.date, e.series, e.number)
                          LIMIT 1) unkeyed
     WHERE e.status = 'committed'
  LOOP
    UPDATE journal_lines l
       SET fiscal_year_id = target.fiscal_year_id, account_number = a.number, entry_date = target.date, series = target.series, entry_number = target.number
      FROM accounts a
     WHERE l.company_id = target.company_id AND l.entry_id = target.id AND a.company_id = l.company_id AND a.id = l.account_id
       AND (l.fiscal_year_id, l.account_number, l.entry_date, l.series, l.entry_number)
           IS DISTINCT FROM (target.fiscal_year_id, a.number, target.date, target.series, target.number);
  END LOOP;
  -- Per entry through its lines' primary key (LATERAL: the same plan at any number of rows).
  SELECT e.id, s.debits, s.credits, s.line_count INTO unbalanced
    FROM committed_rows e
   CROSS JOIN LATERAL (SELECT coalesce(sum(l.debit), 0) AS debits, coalesce(sum(l.credit), 0) AS credits, count(*) AS line_count
                         FROM journal_lines l WHERE l.company_id = e.company_id AND l.entry_id = e.id) s
   WHERE e.status = 'committed' AND (s.line_count < 2 OR s.debits <> s.credits)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % does not balance (debit %, credit %, % lines)', unbalanced.id, unbalanced.debits, unbalanced.credits, unbalanced.line_count
      USING ERRCODE = 'check_violation';
  END IF;
  -- The bound is MAX_COMMITTED_DEBIT_ORE in domain/ledger/amount-limits.ts (a test commits up to it
  -- and one öre past it). program_limit_exceeded (54000) is how domain/ledger tells it apart.
  FOR company IN
    SELECT e.company_id, sum(s.debits) AS debits
      FROM committed_rows e
     CROSS JOIN LATERAL (SELECT coalesce(sum(l.debit), 0) AS debits FROM journal_lines l WHERE l.company_id = e.company_id AND l.entry_id = e.id) s
     WHERE e.status = 'committed'
     GROUP BY e.company_id
  LOOP
    UPDATE companies SET committed_debit = committed_debit + company.debits
     WHERE id = company.company_id AND committed_debit + company.debits <= 4000000000000000;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'committing journal entries would take the committed debits of company % past 4000000000000000 öre', company.company_id
        USING ERRCODE = 'program_limit_exceeded';
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER journal_entries_commit AFTER UPDATE ON journal_entries
  REFERENCING NEW TABLE AS committed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_commit();

-- The lines' guard as in 20261129400000_sie_import_all_or_nothing, split by how it is reached.
-- UPDATE and DELETE stay per row. The commit's own write of the ledger key (nothing else changing)
-- runs after the entry turned committed, so it passes here: from NULL without a lookup, over a key
-- written earlier only when the new key is the entry's own. So a committed line's key can only
-- ever be its right one. An INSERT is checked once per statement, over the statement's new lines
-- (an SIE batch inserts a few dozen at once): none may join a committed entry.
CREATE OR REPLACE FUNCTION journal_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND to_jsonb(OLD) - '{fiscal_year_id,account_number,entry_date,series,entry_number}'::text[]
       = to_jsonb(NEW) - '{fiscal_year_id,account_number,entry_date,series,entry_number}'::text[]
     AND (OLD.fiscal_year_id IS NULL
          OR EXISTS (SELECT 1 FROM journal_entries e JOIN accounts a ON a.company_id = e.company_id AND a.id = NEW.account_id
                      WHERE e.company_id = NEW.company_id AND e.id = NEW.entry_id
                        AND (e.fiscal_year_id, a.number, e.date, e.series, e.number)
                            IS NOT DISTINCT FROM (NEW.fiscal_year_id, NEW.account_number, NEW.entry_date, NEW.series, NEW.entry_number))) THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM journal_entries e
              WHERE e.company_id = OLD.company_id AND e.id = OLD.entry_id AND e.status = 'committed')
     AND NOT (TG_OP = 'DELETE' AND journal_entry_importing(OLD.company_id, OLD.entry_id)) THEN
    RAISE EXCEPTION 'journal entry % is committed; its lines cannot change', OLD.entry_id USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
DROP TRIGGER journal_lines_guard ON journal_lines;
CREATE TRIGGER journal_lines_guard BEFORE UPDATE OR DELETE ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION journal_lines_guard();

CREATE FUNCTION journal_lines_insert_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target uuid;
BEGIN
  SELECT n.entry_id INTO target
    FROM inserted_lines n
   CROSS JOIN LATERAL (SELECT 1 FROM journal_entries e WHERE e.company_id = n.company_id AND e.id = n.entry_id AND e.status = 'committed' LIMIT 1) c
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % is committed; its lines cannot change', target USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER journal_lines_insert_guard AFTER INSERT ON journal_lines
  REFERENCING NEW TABLE AS inserted_lines
  FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_insert_guard();

-- The objects on the lines likewise (20261129400000_sie_import_all_or_nothing): UPDATE and DELETE
-- per row as before, an INSERT once per statement.
CREATE OR REPLACE FUNCTION journal_line_objects_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM journal_entries e
              WHERE e.company_id = OLD.company_id AND e.id = OLD.entry_id AND e.status = 'committed')
     AND NOT (TG_OP = 'DELETE' AND journal_entry_importing(OLD.company_id, OLD.entry_id)) THEN
    RAISE EXCEPTION 'journal entry % is committed; the objects on its lines cannot change', OLD.entry_id
      USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
DROP TRIGGER journal_line_objects_guard ON journal_line_objects;
CREATE TRIGGER journal_line_objects_guard BEFORE UPDATE OR DELETE ON journal_line_objects
  FOR EACH ROW EXECUTE FUNCTION journal_line_objects_guard();

CREATE FUNCTION journal_line_objects_insert_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target uuid;
BEGIN
  SELECT n.entry_id INTO target
    FROM inserted_objects n
   CROSS JOIN LATERAL (SELECT 1 FROM journal_entries e WHERE e.company_id = n.company_id AND e.id = n.entry_id AND e.status = 'committed' LIMIT 1) c
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % is committed; the objects on its lines cannot change', target USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER journal_line_objects_insert_guard AFTER INSERT ON journal_line_objects
  REFERENCING NEW TABLE AS inserted_objects
  FOR EACH STATEMENT EXECUTE FUNCTION journal_line_objects_insert_guard();
