-- GoTrue's SQL helpers for row-level security, created in the namespace (DB_NAMESPACE, `auth` by
-- default: migrations run with search_path set to it, see db/namespace.ts), so a policy written for
-- Supabase, e.g. `using (user_id = auth.uid())`, works unchanged. PostgREST verifies the caller's JWT
-- and hands its claims to the transaction as settings: `request.jwt.claims` (the whole payload as
-- JSON, PostgREST 9 and later) or, in older releases, one `request.jwt.claim.<name>` per claim. Each
-- helper reads the per-claim setting first, then the JSON one; an unset or empty setting means NULL
-- (no caller), never an error. STABLE and in SQL, so the planner can inline them into policies.
CREATE OR REPLACE FUNCTION uid() RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    nullif(pg_catalog.current_setting('request.jwt.claim.sub', true), ''),
    nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
  )::uuid
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION role() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    nullif(pg_catalog.current_setting('request.jwt.claim.role', true), ''),
    nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
  )
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION email() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    nullif(pg_catalog.current_setting('request.jwt.claim.email', true), ''),
    nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'email'
  )
$$;--> statement-breakpoint
-- The whole claim set as jsonb (`auth.jwt() ->> 'aal'`, `auth.jwt() -> 'app_metadata'`).
CREATE OR REPLACE FUNCTION jwt() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    nullif(pg_catalog.current_setting('request.jwt.claim', true), ''),
    nullif(pg_catalog.current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;--> statement-breakpoint
COMMENT ON FUNCTION uid() IS 'The caller''s user id: the JWT''s sub claim (GoTrue''s auth.uid()).';--> statement-breakpoint
COMMENT ON FUNCTION role() IS 'The JWT''s role claim (GoTrue''s auth.role()).';--> statement-breakpoint
COMMENT ON FUNCTION email() IS 'The JWT''s email claim (GoTrue''s auth.email()).';--> statement-breakpoint
COMMENT ON FUNCTION jwt() IS 'Every claim of the caller''s JWT as jsonb (GoTrue''s auth.jwt()).';--> statement-breakpoint
-- PostgREST's roles, where they exist already, may call the helpers (a policy runs them as the
-- caller): USAGE shows them the schema's names, not its rows (no table is granted to anyone). Roles
-- created later need `grant usage on schema auth to <role>` (README, "Row-level security").
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r) THEN
      EXECUTE pg_catalog.format('GRANT USAGE ON SCHEMA %I TO %I', pg_catalog.current_schema(), r);
    END IF;
  END LOOP;
END $$;
