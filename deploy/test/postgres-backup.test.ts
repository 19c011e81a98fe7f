// Issue #25, "Backups" on PostgreSQL: the commands of docs/production.md, read from the page and run
// as written (bash, the real pg_dump, pg_restore and openssl), against the real entry point. The dumps
// are taken while sign-ups keep arriving; each is restored into a database of its own and the service
// started on the copy: the account signs in with its password, and the access and refresh tokens it
// held before the dump still work there (the signing keys and refresh-token chain came along).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Session } from '@supabase/supabase-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANON_KEY,
  type EntryProcess,
  freePort,
  MAIN,
  repoRoot,
  serviceEnv,
  spawnEntry,
  tempDir,
  waitHealthy,
} from '../../apps/auth/test/support/entry-process.ts';
import { createFreshDatabase, type FreshDatabase } from '../../apps/auth/test/support/fresh-database.ts';

const BASE_URL = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const PASSWORD = 'Backed-up-Pass-2071';
const KEPT = `kept-${randomBytes(4).toString('hex')}@example.com`;
const BACKUP_PASSPHRASE = randomBytes(24).toString('hex');

/** The command lines of the PostgreSQL backup recipe in docs/production.md, comments left out. */
function recipe() {
  const doc = readFileSync(join(repoRoot, 'docs/production.md'), 'utf8');
  const block = /- \*\*PostgreSQL\*\*: [^\n]*\n\n\s*```sh\n([\s\S]*?)\n\s*```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/production.md: the PostgreSQL backup recipe (```sh block) is gone');
  const lines = block
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const only = (what: string, test: (l: string) => boolean) => {
    const found = lines.filter(test);
    if (found.length !== 1) throw new Error(`the recipe has ${found.length} lines for ${what}:\n${block}`);
    return found[0] as string;
  };
  return {
    dump: only('the dump', (l) => l.startsWith('pg_dump') && l.includes('--file=namaa.dump ')),
    dumpAuth: only('the auth schema dump', (l) => l.startsWith('pg_dump') && l.includes('--schema=auth')),
    dumpEncrypted: only('the encrypted dump', (l) => l.startsWith('pg_dump') && l.includes('| openssl enc ')),
    restore: only('the restore', (l) => l.startsWith('pg_restore')),
    restoreEncrypted: only('the encrypted restore', (l) => l.startsWith('openssl enc -d')),
  };
}

/** Runs one line of the recipe in bash, in `cwd`, with DATABASE_URL and BACKUP_PASSPHRASE set. */
async function shell(line: string, cwd: string, databaseUrl: string) {
  // pipefail: a failing pg_dump in front of openssl must fail the line, not leave an empty file.
  const proc = spawnEntry(
    'bash',
    ['-c', `set -euo pipefail\n${line}`],
    { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, DATABASE_URL: databaseUrl, BACKUP_PASSPHRASE },
    cwd,
  );
  const { code } = await proc.exited;
  return { code, output: proc.output() };
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

async function startService(databaseUrl: string) {
  const port = await freePort();
  const proc = spawnEntry(process.execPath, [MAIN], serviceEnv(port, { DATABASE_URL: databaseUrl }));
  await waitHealthy(proc, port, 120_000);
  return { proc, url: `http://127.0.0.1:${port}` };
}

const supabase = (url: string) =>
  createClient(url, ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });

describe('the PostgreSQL backup recipe of docs/production.md', () => {
  const work = tempDir('namaa-pg-backup-');
  const databases: FreshDatabase[] = [];
  const processes: EntryProcess[] = [];
  let original: FreshDatabase;
  let session: Session;
  /** Load sign-ups answered 200 before the first dump started: every copy must hold them. */
  let doneBeforeDump: string[] = [];
  const steps = recipe();

  beforeAll(async () => {
    original = await createFreshDatabase(BASE_URL);
    databases.push(original);
    const service = await startService(original.url);
    processes.push(service.proc);
    const signUp = await supabase(service.url).auth.signUp({ email: KEPT, password: PASSWORD });
    expect(signUp.error).toBeNull();
    session = signUp.data.session as Session;
    expect(session?.refresh_token).toEqual(expect.any(String));
    // Another application's table beside the service's schema: the --schema=auth dump leaves it out.
    await query(
      original.url,
      "create table public.app_notes (body text); insert into public.app_notes values ('hi')",
    );

    // Sign-ups keep arriving on two loops while every dump of the recipe is taken.
    let loading = true;
    const answered: Array<{ email: string; status: number; at: number }> = [];
    const loop = async (n: number) => {
      for (let i = 0; loading; i++) {
        const email = `load-${n}-${i}@example.com`;
        const res = await fetch(`${service.url}/auth/v1/signup`, {
          method: 'POST',
          headers: { apikey: ANON_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        await res.body?.cancel();
        answered.push({ email, status: res.status, at: performance.now() });
      }
    };
    const load = Promise.all([loop(1), loop(2)]);
    const waitAnswers = async (n: number) => {
      while (answered.length < n) await new Promise((r) => setTimeout(r, 20));
    };
    await waitAnswers(2);
    const dumpStarted = performance.now();
    for (const line of [steps.dump, steps.dumpAuth, steps.dumpEncrypted]) {
      const result = await shell(line, work.path, original.url);
      expect(result.code, `${line}\n${result.output}`).toBe(0);
    }
    await waitAnswers(answered.length + 2);
    loading = false;
    await load;
    expect(answered.filter((a) => a.status !== 200)).toEqual([]);
    doneBeforeDump = answered.filter((a) => a.at < dumpStarted).map((a) => a.email);
    expect(doneBeforeDump.length).toBeGreaterThanOrEqual(2);
    console.log(`pg backup: ${answered.length} sign-ups answered around the dumps`);
    service.proc.child.kill('SIGTERM');
    expect((await service.proc.exited).code).toBe(0);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.killGroup()));
    for (const d of databases) await d.drop();
    work.remove();
  });

  it('the encrypted dump holds nothing readable', () => {
    const bytes = readFileSync(join(work.path, 'namaa.dump.enc'));
    expect(bytes.subarray(0, 8).toString()).toBe('Salted__'); // openssl enc's header
    expect(bytes.includes(Buffer.from(KEPT))).toBe(false);
  });

  it.each([
    ['namaa.dump', 'restore', true],
    ['namaa-auth.dump (--schema=auth)', 'restoreAuth', false],
    ['namaa.dump.enc (openssl)', 'restoreEncrypted', true],
  ] as const)(
    'restored from %s into a new database: the account signs in, its tokens from before the dump work',
    async (_name, which, withAppTable) => {
      const copy = await createFreshDatabase(BASE_URL);
      databases.push(copy);
      const line =
        which === 'restoreAuth'
          ? steps.restore.replace(/ namaa\.dump$/, ' namaa-auth.dump')
          : which === 'restore'
            ? steps.restore
            : steps.restoreEncrypted;
      const restored = await shell(line, work.path, copy.url);
      expect(restored.code, `${line}\n${restored.output}`).toBe(0);

      // Every sign-up answered before the dump is in the copy, each user with its identity (one
      // transaction in the service: a dump that split one would show a user without it).
      const emails = new Set(
        (await query<{ email: string }>(copy.url, 'select email from auth.users')).map((r) => r.email),
      );
      expect(emails.has(KEPT)).toBe(true);
      expect(doneBeforeDump.filter((e) => !emails.has(e))).toEqual([]);
      const orphans = await query<{ n: number }>(
        copy.url,
        'select count(*)::int as n from auth.users u where not exists (select 1 from auth.identities i where i.user_id = u.id)',
      );
      expect(orphans[0]?.n).toBe(0);
      const appTable = await query<{ t: string | null }>(
        copy.url,
        "select to_regclass('public.app_notes')::text as t",
      );
      expect(appTable[0]?.t ?? null).toBe(withAppTable ? 'app_notes' : null);

      const service = await startService(copy.url);
      processes.push(service.proc);
      const sb = supabase(service.url);
      const signIn = await sb.auth.signInWithPassword({ email: KEPT, password: PASSWORD });
      expect(signIn.error).toBeNull();
      // The access token issued before the dump: signed by a key the copy holds, for a session it holds.
      const user = await sb.auth.getUser(session.access_token);
      expect(user.error).toBeNull();
      expect(user.data.user?.email).toBe(KEPT);
      // The refresh token from before the dump rotates on the copy.
      const refreshed = await sb.auth.refreshSession({ refresh_token: session.refresh_token });
      expect(refreshed.error).toBeNull();
      expect(refreshed.data.session?.refresh_token).not.toBe(session.refresh_token);
      expect(refreshed.data.user?.email).toBe(KEPT);

      service.proc.child.kill('SIGTERM');
      expect((await service.proc.exited).code).toBe(0);
    },
  );
});
