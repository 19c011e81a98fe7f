// Audit log (issue 6): sign-up, sign-in success and failure (known and unknown accounts), sign-out and
// password change each leave one row, written with the change; no secret ever lands in it; and
// `npm run audit-log` reads it back.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/client.ts';
import { formatRows, parseArgs, parseSince, readAuditLog } from '../../../src/features/ops/audit-log.cli.ts';
import { cliArgs } from '../../support/entry-process.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
let t: TestServer;
let dataDir: string;
const email = uniqueEmail('audited');
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'namaa-audit-'));
  // On disk (PGlite) so the command can read the same database after the service stops.
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    REFRESH_TOKEN_REUSE_INTERVAL: '0',
    ...(onPostgres ? {} : { DATA_DIR: dataDir }),
  });
  const sb = t.client();
  expect((await sb.auth.signUp({ email, password: 'correct horse' })).error).toBeNull();
  expect((await t.client().auth.signInWithPassword({ email, password: 'wrong-pass' })).error?.code).toBe(
    'invalid_credentials',
  );
  await t.client().auth.signInWithPassword({ email: uniqueEmail('ghost'), password: 'wrong-pass' });
  expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
  expect((await sb.auth.updateUser({ password: 'brand new pass' })).error).toBeNull();
  expect((await sb.auth.signOut()).error).toBeNull();
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('audit rows', () => {
  it('record each security event for the account, newest first', async () => {
    const rows = await readAuditLog(t.server.deps.db, { limit: 100, user: email });
    expect(rows.map((r) => r.action)).toEqual([
      'logout',
      'user_updated_password',
      'login',
      'login_failed',
      'user_signedup',
    ]);
    for (const r of rows) {
      expect(r.ip_address).toMatch(/127\.0\.0\.1|::1/);
      expect(r.email).toBe(email);
    }
  });

  it('log a failed sign-in on an unknown account too, without an actor', async () => {
    const rows = await readAuditLog(t.server.deps.db, { limit: 100, actions: ['login_failed'] });
    expect(rows.some((r) => r.actor_id === null)).toBe(true);
    expect(rows.some((r) => r.email === email)).toBe(true);
  });

  it('record a refresh-token replay with the revocation it caused', async () => {
    const reused = uniqueEmail('reuse');
    const { data } = await t.client().auth.signUp({ email: reused, password: 'correct horse' });
    const t0 = data.session?.refresh_token as string;
    const refresh = (token: string) =>
      t.api('/token?grant_type=refresh_token', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: token }),
      });
    const t1 = (await (await refresh(t0)).json()).refresh_token;
    expect((await refresh(t1)).status).toBe(200);
    const replay = await refresh(t0); // a grandparent, outside the reuse interval: theft
    expect((await replay.json()).error_code).toBe('refresh_token_already_used');
    const rows = await readAuditLog(t.server.deps.db, {
      limit: 10,
      user: reused,
      actions: ['token_revoked'],
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.payload).toMatchObject({ reason: 'refresh_token_reuse' });
  });

  it('never hold a password, token or JWT', async () => {
    const all = await queryRows<Record<string, unknown>>(
      t.server.deps.db,
      sql`select * from audit_log_entries`,
    );
    const text = JSON.stringify(all);
    expect(text).not.toMatch(/correct horse|brand new pass|wrong-pass/);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./); // a JWT
    expect(text).not.toMatch(/\$argon2/);
  });
});

// A trigger makes the audit insert fail for these actions, as a full disk or a broken table would:
// the change it records must then not happen either.
describe('a change and its audit row commit together', () => {
  beforeAll(async () => {
    await t.server.deps.db.execute(
      sql.raw(`create function namaa_test_refuse_audit() returns trigger language plpgsql as $$
        begin
          if new.action in ('logout', 'factor_enrolled') then raise exception 'audit refused by the test'; end if;
          return new;
        end $$`),
    );
    await t.server.deps.db.execute(
      sql.raw(`create trigger namaa_test_refuse_audit before insert on audit_log_entries
        for each row execute function namaa_test_refuse_audit()`),
    );
  });
  afterAll(async () => {
    await t.server.deps.db.execute(sql.raw('drop trigger namaa_test_refuse_audit on audit_log_entries'));
    await t.server.deps.db.execute(sql.raw('drop function namaa_test_refuse_audit()'));
  });

  type Session = { access_token: string; refresh_token: string; user: { id: string } };
  /** A new account's sign-up session and a second session from a password sign-in. */
  async function twoSessions(): Promise<[Session, Session]> {
    const email = uniqueEmail('unaudited');
    const up = await t.client().auth.signUp({ email, password: 'correct horse' });
    const inAgain = await t.client().auth.signInWithPassword({ email, password: 'correct horse' });
    expect(up.error ?? inAgain.error).toBeNull();
    return [up.data.session as Session, inAgain.data.session as Session];
  }
  const auditRows = (userId: string, action: string) =>
    readAuditLog(t.server.deps.db, { limit: 100, user: userId, actions: [action] });

  it.each(['global', 'local', 'others'])(
    'sign-out (%s) that cannot be audited ends no session',
    async (scope) => {
      const [current, other] = await twoSessions();
      const out = await t.api(`/logout?scope=${scope}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${current.access_token}` },
      });
      expect(out.status).toBe(500);
      expect(await out.json()).toMatchObject({ error_code: 'unexpected_failure' });
      for (const session of [current, other]) {
        const refreshed = await t.api('/token?grant_type=refresh_token', {
          method: 'POST',
          body: JSON.stringify({ refresh_token: session.refresh_token }),
        });
        expect(refreshed.status).toBe(200);
      }
      expect(await auditRows(current.user.id, 'logout')).toEqual([]);
    },
  );

  it('factor enrolment that cannot be audited enrols nothing', async () => {
    const [session] = await twoSessions();
    const auth = { authorization: `Bearer ${session.access_token}` };
    const enrol = await t.api('/factors', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ factor_type: 'totp', friendly_name: 'phone app' }),
    });
    expect(enrol.status).toBe(500);
    const user = (await (await t.api('/user', { headers: auth })).json()) as { factors?: unknown[] };
    expect(user.factors ?? []).toEqual([]);
  });
});

describe('the reader command', () => {
  it('parses its options', () => {
    const now = new Date('2030-01-02T00:00:00Z');
    expect(parseSince('24h', now).toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(parseSince('2029-12-31', now).toISOString()).toBe('2029-12-31T00:00:00.000Z');
    expect(
      parseArgs(['--limit', '5', '--action', 'login,logout', '--user', 'A@B.CO', '--json'], now),
    ).toEqual({
      limit: 5,
      actions: ['login', 'logout'],
      user: 'a@b.co',
      json: true,
    });
    expect(() => parseArgs(['--limit', '0'])).toThrow(/limit/);
    expect(() => parseArgs(['--nope'])).toThrow(/unknown option/);
    expect(formatRows([])).toBe('No audit entries match.');
  });

  it.skipIf(onPostgres)(
    'prints the log of a stopped service (npm run audit-log)',
    async () => {
      await t.close();
      const cli = fileURLToPath(new URL('../../../src/features/ops/audit-log.cli.ts', import.meta.url));
      const run = (...args: string[]) =>
        spawnSync(process.execPath, cliArgs(cli, ...args), {
          env: { PATH: process.env.PATH, DATA_DIR: dataDir },
          encoding: 'utf8',
          timeout: 30_000,
        });
      const table = run('--user', email);
      expect(table.status).toBe(0);
      expect(table.stdout).toMatch(/user_signedup/);
      expect(table.stdout).toMatch(/logout/);
      expect(table.stdout).toContain(email);
      const json = run('--json', '--action', 'user_updated_password');
      expect(json.status).toBe(0);
      const lines = json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ action: 'user_updated_password', email });
      expect(run('--since', 'yesterday-ish').status).toBe(1);
    },
    90_000,
  ); // three CLI processes, each opening PGlite: slow on a loaded two-core machine
});
