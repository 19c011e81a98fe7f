// The data-subject requests that arrive by email (PDPL) and the breach-response export, as the
// operator runs them: `npm run admin -- users export|erase` by email, phone or id, and
// `npm run audit-log -- export --from --to`. On PGlite the service is stopped first (one process
// holds the embedded database); on PostgreSQL the commands run beside it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@supabase/supabase-js';
import { sql } from 'drizzle-orm';
import { afterAll, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { exportAuditWindow } from '../../../src/features/ops/audit-log.cli.ts';
import { cliArgs } from '../../support/entry-process.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const adminCli = fileURLToPath(new URL('../../../src/features/admin/admin.cli.ts', import.meta.url));
const auditCli = fileURLToPath(new URL('../../../src/features/ops/audit-log.cli.ts', import.meta.url));
const onPostgres = !!process.env.DATABASE_URL;
const SERVICE_KEY = 'sb_secret_admin_cli_pdpl_0123456789abcdef';
const PASSWORD = 'cli-pdpl-Pass-42';

type Run = { code: number; stdout: string; stderr: string };
function run(cli: string, env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(cli, ...args),
      {
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
        timeout: 120_000,
        maxBuffer: 64 << 20,
      },
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

it('exports and erases one user by email, phone or id, and exports the audit log of a window', {
  timeout: 600_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'namaa-pdpl-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  let t: TestServer | undefined = await startTestServer({
    ...(onPostgres ? {} : { DATA_DIR: dataDir, PGLITE_FSYNC: 'false' }),
    SERVICE_ROLE_KEY: SERVICE_KEY,
    MAILER_AUTOCONFIRM: 'true',
    SWEEP_INTERVAL: '0',
  });
  cleanups.push(() => t?.close());
  const env: Record<string, string> = onPostgres
    ? { DATABASE_URL: t.config.DATABASE_URL as string }
    : { DATA_DIR: dataDir };

  const email = uniqueEmail('pdpl-subject');
  const signUp = await t.client().auth.signUp({
    email,
    password: PASSWORD,
    options: { data: { privacy_notice_accepted: true } },
  });
  expect(signUp.error).toBeNull();
  const subject = signUp.data.user!.id;
  const admin = createClient(t.url, SERVICE_KEY, { auth: { persistSession: false } }).auth.admin;
  const phone = `+9665${String(Date.now()).slice(-8)}`;
  const phoneUser = await admin.createUser({ phone, password: PASSWORD, phone_confirm: true });
  expect(phoneUser.error).toBeNull();
  // 12,000 audit events one second apart from 2026-01-01 00:00 UTC (more than one export page).
  await t.server.deps.db.execute(sql`insert into audit_log_entries (id, action, actor_id, ip_address, payload, created_at)
    select gen_random_uuid(), 'login', null, '192.0.2.1', jsonb_build_object('n', i),
      timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i)
    from generate_series(0, 11999) i`);
  if (!onPostgres) {
    await t.close();
    t = undefined;
  }

  // Access: the account page's export, by email to stdout…
  const byEmail = await run(adminCli, env, 'users', 'export', email);
  expect(byEmail.code, byEmail.stderr).toBe(0);
  const exported = JSON.parse(byEmail.stdout);
  expect(exported).toMatchObject({
    format: 'namaa-account-export',
    version: 1,
    user: { id: subject, email },
    privacy_notice: { version: '2026-11', accepted_at: expect.any(String) },
  });
  expect(exported.sessions).toHaveLength(1);
  expect(exported.sessions[0].current).toBe(false);
  expect(exported.audit_events.map((e: { action: string }) => e.action)).toContain('user_signedup');
  // …by phone to a file only the operator can read, never overwritten…
  const file = join(dir, 'phone-user.json');
  const toFile = await run(adminCli, env, 'users', 'export', phone, '--out', file);
  expect(toFile.code, toFile.stderr).toBe(0);
  expect(JSON.parse(readFileSync(file, 'utf8')).user).toMatchObject({ id: phoneUser.data.user!.id });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const again = await run(adminCli, env, 'users', 'export', phone, '--out', file);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/exists: an export never overwrites a file/);
  // …and by id, with --json.
  const byId = await run(adminCli, env, 'users', 'export', subject, '--json');
  expect(JSON.parse(byId.stdout).user.id).toBe(subject);
  const unknown = await run(adminCli, env, 'users', 'export', uniqueEmail('nobody'));
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/^user_not_found: /);

  // Erasure: DELETE /account's, by email; the audit trail stays without personal data.
  const erased = await run(adminCli, env, 'users', 'erase', email, '--json');
  expect(erased.code, erased.stderr).toBe(0);
  expect(JSON.parse(erased.stdout)).toEqual({ id: subject, deleted: true });
  const gone = await run(adminCli, env, 'users', 'show', subject);
  expect(gone.stderr).toMatch(/user_not_found/);
  expect((await run(adminCli, env, 'users', 'erase', email)).code).toBe(1);

  // Breach response: the window [00:00, 03:00) is 10,800 events, oldest first, progress on stderr.
  const out = join(dir, 'window.jsonl');
  const window = await run(
    auditCli,
    env,
    'export',
    '--from',
    '2026-01-01T00:00:00Z',
    '--to',
    '2026-01-01T03:00:00Z',
    '--out',
    out,
  );
  expect(window.code, window.stderr).toBe(0);
  const lines = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(10_800);
  expect(lines[0]).toMatchObject({
    action: 'login',
    payload: { n: 0 },
    created_at: '2026-01-01T00:00:00.000Z',
  });
  expect(lines.at(-1)).toMatchObject({ payload: { n: 10_799 }, created_at: '2026-01-01T02:59:59.000Z' });
  expect(statSync(out).mode & 0o777).toBe(0o600);
  expect(window.stderr).toMatch(/^Exporting 10800 audit events/);
  expect(window.stderr).toMatch(/5000 \/ 10800 \(46 %\)/);
  expect(window.stderr).toMatch(/Exported 10800 events in [\d.]+ s to /);

  // Today's window, to stdout: the erasure is there, recorded as the CLI's, and the subject's own
  // rows carry no IP address any more.
  const today = new Date();
  const from = new Date(today.getTime() - 3600_000).toISOString();
  const to = new Date(today.getTime() + 3600_000).toISOString();
  const recent = await run(auditCli, env, 'export', '--from', from, '--to', to);
  expect(recent.code, recent.stderr).toBe(0);
  const events = recent.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const mine = events.filter((e: { actor_id: string }) => e.actor_id === subject);
  expect(mine.map((e: { action: string }) => e.action)).toEqual(
    expect.arrayContaining(['user_signedup', 'user_deleted']),
  );
  for (const e of mine) expect(e.ip_address).toBeNull();
  expect(mine.find((e: { action: string }) => e.action === 'user_deleted').payload.by).toMatch(/^cli:/);

  // Refusals: one line, exit 1.
  for (const args of [
    ['export', '--from', 'yesterday', '--to', to],
    ['export', '--from', to, '--to', from],
  ]) {
    const r = await run(auditCli, env, ...args);
    expect(r.code, args.join(' ')).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }
});

it('pages a window by (created_at, id): rows of one instant are neither lost nor repeated', async () => {
  const t = await startTestServer({ SWEEP_INTERVAL: '0' });
  try {
    const db = t.server.deps.db;
    await db.execute(sql`insert into audit_log_entries (id, action, payload, created_at)
      select gen_random_uuid(), 'paging_probe', '{}', timestamptz '2025-06-01 12:00:00.123456+00'
      from generate_series(1, 25)`);
    const pages: number[] = [];
    const ids: string[] = [];
    for await (const page of exportAuditWindow(
      db,
      { from: new Date('2025-06-01T00:00:00Z'), to: new Date('2025-06-02T00:00:00Z') },
      10,
    )) {
      pages.push(page.length);
      ids.push(...page.map((r) => r.id));
    }
    expect(pages).toEqual([10, 10, 5]);
    expect(new Set(ids).size).toBe(25);
    const all = await queryRows<{ id: string }>(
      db,
      sql`select id from audit_log_entries where action = 'paging_probe' order by id`,
    );
    expect([...ids].sort()).toEqual(all.map((r) => r.id));
  } finally {
    await t.close();
  }
});
