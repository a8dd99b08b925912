-- Comparative figures (issue 27, docs/sie.md "Prior years"): the balances a company's earlier
-- program held for years before its first year with us. SIE 4B ("SIE filformat, utgåva 4B",
-- 2008-09-30, §8 #RAR, #IB, #UB, #RES) writes them as year -1, -2, …: the year's dates and, per
-- account, its opening (#IB) and closing (#UB) balance, or a result account's result (#RES).
-- They are figures, not vouchers: reports of our own years never add them; the SIE export writes
-- them as the previous years, so a file passed through us keeps the comparatives it had.

CREATE TABLE comparative_years (
  company_id  uuid NOT NULL REFERENCES companies(id),
  start_date  date NOT NULL,
  end_date    date NOT NULL CHECK (end_date >= start_date),
  -- The SIE import that brought it, while that import is pending (hidden; migration 20261129400000).
  import_id   uuid,
  created_at  timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, start_date),
  FOREIGN KEY (company_id, import_id) REFERENCES operations (company_id, id)
);

CREATE TABLE comparative_balances (
  company_id  uuid NOT NULL,
  year_start  date NOT NULL,
  -- An account number as the chart holds them (accounts.number); the figure may name an account
  -- the company no longer uses, so it is not a key into the chart.
  account     text NOT NULL CHECK (account ~ '^[1-9][0-9]{3}[0-9]{0,2}$'),
  kind        text NOT NULL CHECK (kind IN ('IB', 'UB', 'RES')),
  -- Öre, debit positive (as SIE writes them: credit negative).
  amount      bigint NOT NULL,
  PRIMARY KEY (company_id, year_start, account, kind),
  FOREIGN KEY (company_id, year_start) REFERENCES comparative_years (company_id, start_date) ON DELETE CASCADE
);

REVOKE ALL ON comparative_years, comparative_balances FROM api_anon;
