-- Long-running operation kinds are declared in code, one file each (domain/operations/kinds/), and
-- a runner claims only the kinds it knows (domain/operations/runner.ts): a row of a kind no process
-- knows waits, visible and cancellable, instead of failing. The CHECK that listed the kinds made
-- adding a kind a migration as well; the database keeps the shape of the name.
ALTER TABLE operations DROP CONSTRAINT operations_kind_check;
ALTER TABLE operations ADD CONSTRAINT operations_kind_shape CHECK (kind ~ '^[a-z][a-z0-9_]*$');
