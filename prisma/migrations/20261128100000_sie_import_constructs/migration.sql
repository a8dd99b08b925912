-- SIE import of real files (issue 27, docs/sie.md).

-- 1. Accounts as Swedish programs write them: BAS four-digit accounts in classes 1-9 (class 9 is
-- BAS's internal accounts, kalkylkonton), and sub-accounts of one or two more digits (19301). The
-- BAS class and group stay the first digits, so reports group a sub-account with its parent.
ALTER TABLE accounts DROP CONSTRAINT accounts_number_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_number_check CHECK (number ~ '^[1-9][0-9]{3}[0-9]{0,2}$');
-- A generated column's expression cannot be altered before PostgreSQL 17: drop and add it again.
ALTER TABLE accounts DROP COLUMN type;
ALTER TABLE accounts ADD COLUMN type text NOT NULL GENERATED ALWAYS AS (
  CASE left(number, 1)
    WHEN '1' THEN 'asset'
    WHEN '2' THEN 'equity_liability'
    WHEN '3' THEN 'revenue'
    WHEN '8' THEN 'financial'
    WHEN '9' THEN 'internal'
    ELSE 'expense'
  END) STORED;

-- 2. An imported verification keeps the series and number the exporting program gave it (SIE 4B
-- #VER: serie and vernr are free text); ours are mapped from them (domain/sie/series.ts).
ALTER TABLE journal_entries ADD COLUMN source_series text CHECK (length(source_series) <= 100);
ALTER TABLE journal_entries ADD COLUMN source_number text CHECK (length(source_number) <= 100);
