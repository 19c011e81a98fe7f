// Reads a Supabase / GoTrue `auth` schema: from a pg_dump file (plain SQL, COPY blocks, pg_dump's
// default and `supabase db dump --use-copy`) or from a live PostgreSQL database. Both give the same
// shape: one plain object per row, keyed by column name, values as pg_dump's text or as to_jsonb()
// renders them (the mapping in map-rows.ts accepts both).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';

export type SourceRow = Record<string, unknown>;
export type SourceData = {
  users: SourceRow[];
  identities: SourceRow[];
  factors: SourceRow[];
  /** GoTrue's recovery codes (2026 on): a set per recovery-code factor, and its hashed codes. */
  recoveryCodeSets: SourceRow[];
  recoveryCodes: SourceRow[];
};

const TABLES: Record<string, keyof SourceData> = {
  users: 'users',
  identities: 'identities',
  mfa_factors: 'factors',
  mfa_recovery_code_sets: 'recoveryCodeSets',
  mfa_recovery_codes: 'recoveryCodes',
};

/** `COPY auth.users (id, aud, …) FROM stdin;` (names may be double-quoted). */
const COPY_LINE = /^COPY\s+"?auth"?\."?([a-z_]+)"?\s*\(([^)]*)\)\s+FROM\s+stdin;\s*$/i;

/** One field of COPY's text format: `\N` is NULL, backslash escapes as PostgreSQL writes them. */
export function unescapeCopyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === 'x' && e.length > 1) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(Number.parseInt(e, 8));
    return { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }[e] ?? e;
  });
}

/**
 * The rows of auth.users, auth.identities, auth.mfa_factors and the recovery-code tables in a
 * plain-SQL dump. Other tables
 * (sessions, refresh tokens, one-time tokens, flow state) are not moved: users sign in again.
 */
export async function readDump(path: string): Promise<SourceData> {
  const out: SourceData = { users: [], identities: [], factors: [], recoveryCodeSets: [], recoveryCodes: [] };
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let current: { target: SourceRow[]; columns: string[] } | undefined;
  let skipping = false;
  let sawUsers = false;
  for await (const line of lines) {
    if (current || skipping) {
      if (line === '\\.') {
        current = undefined;
        skipping = false;
        continue;
      }
      if (!current) continue;
      const fields = line.split('\t');
      if (fields.length !== current.columns.length)
        throw new Error(`malformed COPY row: ${fields.length} fields for ${current.columns.length} columns`);
      const row: SourceRow = {};
      current.columns.forEach((c, i) => {
        row[c] = unescapeCopyField(fields[i] as string);
      });
      current.target.push(row);
      continue;
    }
    const m = line.match(COPY_LINE);
    if (!m) {
      if (/^COPY\s/i.test(line) && /FROM\s+stdin;\s*$/i.test(line)) skipping = true;
      continue;
    }
    const key = TABLES[m[1] as string];
    if (!key) {
      skipping = true;
      continue;
    }
    if (key === 'users') sawUsers = true;
    const columns = (m[2] as string).split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
    current = { target: out[key], columns };
  }
  if (!sawUsers)
    throw new Error(
      'no `COPY auth.users` block in this file: give a plain-SQL dump in COPY format (pg_dump --schema=auth, or supabase db dump --use-copy), or the source DATABASE_URL',
    );
  return out;
}

/** The same rows from a live database (another project's DATABASE_URL), read in one snapshot. */
export async function readLive(url: string): Promise<SourceData> {
  const client = new pg.Client({ connectionString: url, application_name: 'namaa-import' });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const read = async (table: string, optional = false) => {
      try {
        await client.query('SAVEPOINT t');
        const r = await client.query<{ row: SourceRow }>(`SELECT to_jsonb(t) AS row FROM auth.${table} t`);
        return r.rows.map((x) => x.row);
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT t');
        if (optional && (err as { code?: string }).code === '42P01') return [];
        throw err;
      }
    };
    const data: SourceData = {
      users: await read('users'),
      identities: await read('identities', true),
      factors: await read('mfa_factors', true),
      // GoTrue before its recovery codes has neither table.
      recoveryCodeSets: await read('mfa_recovery_code_sets', true),
      recoveryCodes: await read('mfa_recovery_codes', true),
    };
    await client.query('COMMIT');
    return data;
  } finally {
    await client.end();
  }
}
