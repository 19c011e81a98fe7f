// A Supabase project's `auth` schema, as GoTrue's migrations leave it (the columns the import reads
// and the ones around them), rendered two ways: a plain-SQL pg_dump file (COPY blocks in PostgreSQL's
// text format, what `pg_dump --schema=auth` writes) and SQL to build it in a live database.
import pg from 'pg';

export type Row = Record<string, string | boolean | null | Record<string, unknown>>;
export type AuthSchemaRows = {
  users: Row[];
  identities: Row[];
  mfa_factors: Row[];
  /** GoTrue's recovery codes (supabase/auth 2026): one set per recovery-code factor, its hashed codes. */
  mfa_recovery_code_sets?: Row[];
  mfa_recovery_codes?: Row[];
};
const TABLES = [
  'users',
  'identities',
  'mfa_factors',
  'mfa_recovery_code_sets',
  'mfa_recovery_codes',
] as const;

const DDL = `CREATE SCHEMA IF NOT EXISTS auth;
CREATE TYPE auth.factor_type AS ENUM ('totp', 'webauthn', 'phone', 'recovery_code');
CREATE TYPE auth.factor_status AS ENUM ('unverified', 'verified');
CREATE TABLE auth.users (
    instance_id uuid,
    id uuid NOT NULL PRIMARY KEY,
    aud character varying(255),
    role character varying(255),
    email character varying(255),
    encrypted_password character varying(255),
    email_confirmed_at timestamp with time zone,
    invited_at timestamp with time zone,
    confirmation_token character varying(255),
    confirmation_sent_at timestamp with time zone,
    recovery_token character varying(255),
    recovery_sent_at timestamp with time zone,
    email_change_token_new character varying(255),
    email_change character varying(255),
    email_change_sent_at timestamp with time zone,
    last_sign_in_at timestamp with time zone,
    raw_app_meta_data jsonb,
    raw_user_meta_data jsonb,
    is_super_admin boolean,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    phone text DEFAULT NULL::character varying UNIQUE,
    phone_confirmed_at timestamp with time zone,
    phone_change text DEFAULT ''::character varying,
    phone_change_token character varying(255) DEFAULT ''::character varying,
    phone_change_sent_at timestamp with time zone,
    confirmed_at timestamp with time zone GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
    email_change_token_current character varying(255) DEFAULT ''::character varying,
    email_change_confirm_status smallint DEFAULT 0,
    banned_until timestamp with time zone,
    reauthentication_token character varying(255) DEFAULT ''::character varying,
    reauthentication_sent_at timestamp with time zone,
    is_sso_user boolean DEFAULT false NOT NULL,
    deleted_at timestamp with time zone,
    is_anonymous boolean DEFAULT false NOT NULL
);
CREATE TABLE auth.identities (
    provider_id text NOT NULL,
    user_id uuid NOT NULL REFERENCES auth.users(id) ON DELETE CASCADE,
    identity_data jsonb NOT NULL,
    provider text NOT NULL,
    last_sign_in_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    email text GENERATED ALWAYS AS (lower((identity_data ->> 'email'::text))) STORED,
    id uuid DEFAULT gen_random_uuid() NOT NULL PRIMARY KEY
);
CREATE TABLE auth.mfa_factors (
    id uuid NOT NULL PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES auth.users(id) ON DELETE CASCADE,
    friendly_name text,
    factor_type auth.factor_type NOT NULL,
    status auth.factor_status NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    secret text,
    phone text,
    last_challenged_at timestamp with time zone,
    web_authn_credential jsonb,
    web_authn_aaguid uuid
);
CREATE TABLE auth.mfa_recovery_code_sets (
    id uuid NOT NULL PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES auth.users(id) ON DELETE CASCADE,
    mfa_factor_id uuid NOT NULL UNIQUE REFERENCES auth.mfa_factors(id) ON DELETE CASCADE,
    failed_verification_count integer DEFAULT 0 NOT NULL,
    verification_locked_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE auth.mfa_recovery_codes (
    id uuid NOT NULL PRIMARY KEY,
    mfa_recovery_code_set_id uuid NOT NULL REFERENCES auth.mfa_recovery_code_sets(id) ON DELETE CASCADE,
    code_hash text NOT NULL,
    consumed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
`;

/** pg_dump leaves generated columns out of COPY. */
const COLUMNS: Record<(typeof TABLES)[number], string[]> = {
  users: [
    'instance_id',
    'id',
    'aud',
    'role',
    'email',
    'encrypted_password',
    'email_confirmed_at',
    'invited_at',
    'confirmation_token',
    'confirmation_sent_at',
    'recovery_token',
    'recovery_sent_at',
    'email_change_token_new',
    'email_change',
    'email_change_sent_at',
    'last_sign_in_at',
    'raw_app_meta_data',
    'raw_user_meta_data',
    'is_super_admin',
    'created_at',
    'updated_at',
    'phone',
    'phone_confirmed_at',
    'phone_change',
    'phone_change_token',
    'phone_change_sent_at',
    'email_change_token_current',
    'email_change_confirm_status',
    'banned_until',
    'reauthentication_token',
    'reauthentication_sent_at',
    'is_sso_user',
    'deleted_at',
    'is_anonymous',
  ],
  identities: [
    'provider_id',
    'user_id',
    'identity_data',
    'provider',
    'last_sign_in_at',
    'created_at',
    'updated_at',
    'id',
  ],
  mfa_factors: [
    'id',
    'user_id',
    'friendly_name',
    'factor_type',
    'status',
    'created_at',
    'updated_at',
    'secret',
    'phone',
    'last_challenged_at',
    'web_authn_credential',
    'web_authn_aaguid',
  ],
  mfa_recovery_code_sets: [
    'id',
    'user_id',
    'mfa_factor_id',
    'failed_verification_count',
    'verification_locked_until',
    'created_at',
    'updated_at',
  ],
  mfa_recovery_codes: ['id', 'mfa_recovery_code_set_id', 'code_hash', 'consumed_at', 'created_at'],
};

/** PostgreSQL's COPY text format for one value. */
function copyValue(v: Row[string] | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  const s = typeof v === 'object' ? JSON.stringify(v) : v;
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** The dump file's text, laid out as pg_dump writes it. */
export function renderDump(rows: AuthSchemaRows): string {
  const out = [
    '--',
    '-- PostgreSQL database dump',
    '--',
    '',
    'SET statement_timeout = 0;',
    "SET client_encoding = 'UTF8';",
    "SELECT pg_catalog.set_config('search_path', '', false);",
    '',
    DDL,
    '--',
    '-- Data for Name: audit_log_entries; Type: TABLE DATA; Schema: auth; Owner: supabase_auth_admin',
    '--',
    '',
    'COPY auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) FROM stdin;',
    '\\N\t7e0b3a51-36b3-4b55-9bd7-1e4ad4c0a0a1\t{"action":"login"}\t2024-03-01 10:00:00+00\t',
    '\\.',
    '',
  ];
  for (const table of TABLES) {
    out.push(`COPY auth.${table} (${COLUMNS[table].join(', ')}) FROM stdin;`);
    for (const row of rows[table] ?? []) out.push(COLUMNS[table].map((c) => copyValue(row[c])).join('\t'));
    out.push('\\.', '');
  }
  out.push('--', '-- PostgreSQL database dump complete', '--');
  return `${out.join('\n')}\n`;
}

/** Builds the schema and its rows in a live database (the import's other source). */
export async function loadIntoDatabase(url: string, rows: AuthSchemaRows): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(DDL);
    for (const table of TABLES) {
      for (const row of rows[table] ?? []) {
        const cols = COLUMNS[table].filter((c) => row[c] !== undefined);
        const values = cols.map((c) => {
          const v = row[c];
          return v !== null && typeof v === 'object' ? JSON.stringify(v) : v;
        });
        await client.query(
          `INSERT INTO auth.${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
          values,
        );
      }
    }
  } finally {
    await client.end();
  }
}
