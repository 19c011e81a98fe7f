// The operator CLI as a process (node --import …/preload.ts apps/auth/src/features/admin/admin.cli.ts,
// what `npm run admin` runs): exit codes, --json output, the refusal while the service holds the embedded database, and
// that its changes are the service's (a user it creates signs in; its actions are audited).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@supabase/supabase-js';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLogEntries } from '../../../src/db/schema.ts';
import { cliArgs } from '../../support/entry-process.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const cli = fileURLToPath(new URL('../../../src/features/admin/admin.cli.ts', import.meta.url));
const onPostgres = !!process.env.DATABASE_URL;
const SERVICE_KEY = 'sb_secret_admin_cli_test_key_0123456789abcdef';
const PASSWORD = 'cli-test-Pass-42';

type Run = { code: number; stdout: string; stderr: string };

function run(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(cli, ...args),
      { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env }, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe.skipIf(onPostgres)('on the embedded database (PGlite)', () => {
  it('refuses while the service runs, then manages users once it is stopped', {
    timeout: 400_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'namaa-admin-cli-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir, PGLITE_FSYNC: 'false' };
    let t: TestServer | undefined = await startTestServer({ ...env, SERVICE_ROLE_KEY: SERVICE_KEY });
    cleanups.push(() => t?.close());
    const existing = uniqueEmail('cli-existing');
    const admin = createClient(t.url, SERVICE_KEY, { auth: { persistSession: false } }).auth.admin;
    await admin.createUser({ email: existing, password: PASSWORD, email_confirm: true });

    // The service holds the data directory: refused, exit 2, nothing changed.
    const refused = await run(env, 'users', 'create', '--email', uniqueEmail('cli-refused'), '--json');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/in use by another Namaa process/);
    expect(refused.stderr).toMatch(/Nothing was changed/);
    await t.close();
    t = undefined;

    const email = uniqueEmail('cli-made');
    const created = await run(
      env,
      'users',
      'create',
      '--email',
      email,
      '--password',
      PASSWORD,
      '--confirm',
      '--metadata',
      '{"team":"ops"}',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({ email, user_metadata: { team: 'ops', email_verified: true } });

    const listed = await run(env, 'users', 'list', '--json');
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout);
    expect(list.total).toBe(2);
    expect(list.users.map((u: { email: string }) => u.email).sort()).toEqual([email, existing].sort());
    const table = await run(env, 'users', 'list');
    expect(table.stdout).toMatch(/^ID\s+EMAIL\s+PHONE\s+CREATED/);
    expect(table.stdout).toContain(existing);

    const banned = await run(env, 'users', 'ban', existing, '--duration', '2h', '--json');
    expect(banned.code).toBe(0);
    expect(Date.parse(JSON.parse(banned.stdout).banned_until) - Date.now()).toBeGreaterThan(110 * 60_000);
    const shown = await run(env, 'users', 'show', existing);
    expect(shown.stdout).toMatch(/status\s+banned until/);

    const link = await run(env, 'users', 'link', 'magiclink', email, '--json');
    expect(link.code).toBe(0);
    expect(JSON.parse(link.stdout)).toMatchObject({
      email,
      verification_type: 'magiclink',
      action_link: expect.stringContaining('/auth/v1/verify?token='),
      email_otp: expect.stringMatching(/^\d{6}$/),
    });

    // Refusals: the service's own rules (exit 1, GoTrue's code), and bad usage (exit 1).
    const dup = await run(env, 'users', 'create', '--email', email, '--password', PASSWORD);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/^email_exists: /);
    const dupJson = await run(env, 'users', 'create', '--email', email, '--password', PASSWORD, '--json');
    expect(JSON.parse(dupJson.stderr)).toMatchObject({ error_code: 'email_exists', status: 422 });
    expect((await run(env, 'users', 'frobnicate')).code).toBe(1);
    expect((await run(env, 'users', 'show', '--nope')).code).toBe(1);

    const tmp = uniqueEmail('cli-gone');
    await run(env, 'users', 'create', '--email', tmp, '--password', PASSWORD);
    expect((await run(env, 'users', 'delete', tmp)).code).toBe(0);
    const gone = await run(env, 'users', 'show', tmp);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/user_not_found/);

    // What the CLI did is the service's state: the new user signs in, the banned one cannot, and
    // every change is audited as the CLI's.
    t = await startTestServer({ ...env, SERVICE_ROLE_KEY: SERVICE_KEY });
    expect((await t.client().auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const bannedSignIn = await t.client().auth.signInWithPassword({ email: existing, password: PASSWORD });
    expect(bannedSignIn.error?.code).toBe('user_banned');
    const rows = await t.server.deps.db
      .select()
      .from(auditLogEntries)
      .where(sql`${auditLogEntries.payload}->>'actor' like 'cli:%'`);
    expect(rows.map((r) => r.action).sort()).toEqual(
      ['admin_link_generated', 'user_deleted', 'user_modified', 'user_signedup', 'user_signedup'].sort(),
    );
    for (const r of rows) expect(r.payload).toMatchObject({ actor_role: 'operator' });
  });
});

describe.skipIf(!onPostgres)('on PostgreSQL', () => {
  it('runs beside the service, which sees its changes at once', { timeout: 200_000 }, async () => {
    const t = await startTestServer({ SERVICE_ROLE_KEY: SERVICE_KEY });
    cleanups.push(() => t.close());
    const env = { DATABASE_URL: t.config.DATABASE_URL as string };
    const email = uniqueEmail('cli-pg');
    const created = await run(
      env,
      'users',
      'create',
      '--email',
      email,
      '--password',
      PASSWORD,
      '--confirm',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    expect((await t.client().auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    expect((await run(env, 'users', 'ban', email)).code).toBe(0);
    const refused = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(refused.error?.code).toBe('user_banned');
    const listed = JSON.parse((await run(env, 'users', 'list', '--filter', email, '--json')).stdout);
    expect(listed.users).toHaveLength(1);
  });
});
