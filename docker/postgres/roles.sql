-- Roles of the Compose topology, one per service, none a superuser (docs/security.md). Run by
-- init-roles.sh as the `postgres` superuser while connected to the application database
-- (`payments`); idempotent, so it can be run again on an existing volume. Passwords are set by
-- init-roles.sh from the environment, never here.
--
--   payments_migrator  owns the application database and its `public` schema; the one-shot
--                      `migrate` service applies the migrations with it (DDL).
--   payments_api       the API: reads and writes rows, no DDL, nothing outside this database.
--   payments_worker    the Temporal worker and relays: the same row access, with its own password.
--   temporal           owns `temporal` and `temporal_visibility` (created by init-roles.sh); no
--                      access to the application database.
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['payments_migrator', 'payments_api', 'payments_worker', 'temporal'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I LOGIN', r);
    END IF;
    EXECUTE format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', r);
  END LOOP;
END
$$;

-- The migrator owns the database (and so, on PostgreSQL 15+, its `public` schema) and every
-- object already in `public` (a volume from before the split, where the superuser created them).
DO $$
DECLARE
  obj record;
BEGIN
  EXECUTE format('ALTER DATABASE %I OWNER TO payments_migrator', current_database());
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO payments_api, payments_worker', current_database());
  ALTER SCHEMA public OWNER TO payments_migrator;
  FOR obj IN
    SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i') AND c.relkind = 'S')
      AND pg_get_userbyid(c.relowner) <> 'payments_migrator'
  LOOP
    EXECUTE format('ALTER %s public.%I OWNER TO payments_migrator',
      CASE obj.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      obj.relname);
  END LOOP;
  FOR obj IN
    SELECT p.oid::regprocedure AS sig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> 'payments_migrator'
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO payments_migrator', obj.sig);
  END LOOP;
END
$$;

-- Only the migrator creates objects; the services use them.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO payments_api, payments_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO payments_api, payments_worker;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO payments_api, payments_worker;
-- ...and on whatever later migrations create.
ALTER DEFAULT PRIVILEGES FOR ROLE payments_migrator IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO payments_api, payments_worker;
ALTER DEFAULT PRIVILEGES FOR ROLE payments_migrator IN SCHEMA public
  GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO payments_api, payments_worker;
