-- The events feed (listEvents) reads one company's events in (created_at, id) order and resumes
-- after a (created_at, id) position; this index serves both, so the old (company_id, created_at)
-- index it supersedes is dropped.
CREATE INDEX events_company_feed ON events (company_id, created_at, id);
DROP INDEX events_company;
