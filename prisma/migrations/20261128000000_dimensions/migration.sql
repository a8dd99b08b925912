-- Dimensions in the ledger (issue 27): a company's dimensions (cost centre, project, custom ones)
-- and their objects, and the objects a journal line carries. SIE 4B ("SIE filformat, utgåva 4B",
-- 2008-09-30) defines them with #DIM, #UNDERDIM and #OBJEKT and puts them on a row as the object
-- list of #TRANS, at most one object per dimension; numbers 1-19 are reserved by SIE (1 cost
-- centre, 2 cost bearer under 1, 6 project, 7 employee, 8 customer, 9 supplier, 10 invoice),
-- 20 and up are the company's own. The dimension number and the object code are their identity
-- (as the account number is an account's): a line names them, and the SIE export writes them.

CREATE TABLE dimensions (
  company_id     uuid NOT NULL REFERENCES companies(id),
  number         integer NOT NULL CHECK (number BETWEEN 1 AND 999999),
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- #UNDERDIM: a sub-dimension names its super-dimension. Set when the dimension is created and
  -- fixed after (trigger below), so a chain can only point at older dimensions: no cycles.
  parent_number  integer CHECK (parent_number <> number),
  created_at     timestamptz(6) NOT NULL DEFAULT now(),
  updated_at     timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, number),
  FOREIGN KEY (company_id, parent_number) REFERENCES dimensions (company_id, number)
);

CREATE TABLE dimension_objects (
  company_id        uuid NOT NULL,
  dimension_number  integer NOT NULL,
  -- SIE writes the code as a quoted string ("Nord", "0001", "1"): kept exactly, leading zeros too.
  code              text NOT NULL CHECK (length(code) BETWEEN 1 AND 100 AND code !~ '[[:cntrl:]]'),
  name              text NOT NULL CHECK (length(name) <= 200),
  active            boolean NOT NULL DEFAULT true,
  created_at        timestamptz(6) NOT NULL DEFAULT now(),
  updated_at        timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, dimension_number, code),
  FOREIGN KEY (company_id, dimension_number) REFERENCES dimensions (company_id, number)
);

-- The identity of a dimension (number, parent) and of an object (dimension, code) never changes:
-- lines and exported files name them.
CREATE FUNCTION dimensions_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.company_id <> OLD.company_id OR NEW.number <> OLD.number
     OR NEW.parent_number IS DISTINCT FROM OLD.parent_number THEN
    RAISE EXCEPTION 'dimension % cannot change its number, parent or company', OLD.number USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER dimensions_identity_fixed BEFORE UPDATE ON dimensions
  FOR EACH ROW EXECUTE FUNCTION dimensions_identity_fixed();

CREATE FUNCTION dimension_objects_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.company_id <> OLD.company_id OR NEW.dimension_number <> OLD.dimension_number OR NEW.code <> OLD.code THEN
    RAISE EXCEPTION 'object % of dimension % cannot change its code, dimension or company', OLD.code, OLD.dimension_number
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER dimension_objects_identity_fixed BEFORE UPDATE ON dimension_objects
  FOR EACH ROW EXECUTE FUNCTION dimension_objects_identity_fixed();

-- The objects a line carries: the primary key allows one object per dimension per line (SIE 4B
-- #TRANS), and the composite keys keep line and object in the same company.
CREATE TABLE journal_line_objects (
  company_id        uuid NOT NULL,
  entry_id          uuid NOT NULL,
  line_no           integer NOT NULL,
  dimension_number  integer NOT NULL,
  object_code       text NOT NULL,
  PRIMARY KEY (company_id, entry_id, line_no, dimension_number),
  FOREIGN KEY (company_id, entry_id, line_no) REFERENCES journal_lines (company_id, entry_id, line_no) ON DELETE CASCADE,
  FOREIGN KEY (company_id, dimension_number, object_code) REFERENCES dimension_objects (company_id, dimension_number, code)
);
-- Reports filter lines by object.
CREATE INDEX journal_line_objects_by_object ON journal_line_objects (company_id, dimension_number, object_code);

-- A committed line's objects are as fixed as the line (Bokföringslagen 5 kap.: a verification
-- never changes once booked), the same rule journal_lines_guard holds for the lines.
CREATE FUNCTION journal_line_objects_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
    RAISE EXCEPTION 'journal entry % is committed; the objects on its lines cannot change', target_entry
      USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER journal_line_objects_guard BEFORE INSERT OR UPDATE OR DELETE ON journal_line_objects
  FOR EACH ROW EXECUTE FUNCTION journal_line_objects_guard();

REVOKE ALL ON dimensions, dimension_objects, journal_line_objects FROM api_anon;
