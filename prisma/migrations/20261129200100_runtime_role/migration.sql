-- Issue 28, least privilege for the privileged path: the server and the workers run as api_runtime,
-- which reads and writes rows but owns nothing. Without ownership it cannot TRUNCATE (not granted),
-- ALTER, DROP or disable a trigger (ALTER TABLE needs the owner), and it cannot set
-- session_replication_role (superuser only unless granted, which it is not). So the immutability
-- triggers on committed books hold against the identity the service runs as. Migrations run as the
-- owner (DATABASE_MIGRATION_URL). Roles are cluster-wide: create it once; grants are per database.
-- Production sets its password (ALTER ROLE api_runtime PASSWORD …), as for api_anon (README).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'api_runtime') THEN
    CREATE ROLE api_runtime LOGIN;
  END IF;
END $$;
GRANT USAGE ON SCHEMA public TO api_runtime;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO api_runtime;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO api_runtime;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO api_runtime;
-- The migrator's own bookkeeping is the owner's alone.
REVOKE ALL ON _prisma_migrations FROM api_runtime;
-- What later migrations create (as the same owner) is granted alike, without each one saying so.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO api_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO api_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO api_runtime;
