// Every statement an endpoint or a periodic job runs, planned against tables big enough for the
// planner's choice to mean something (20,000 accounts with their sessions, tokens, links, audit
// rows, counters and mail, ANALYZEd): none may read a whole table that grows with the users.
// The statements are the service's own: the repositories are called with a Drizzle handle that
// records what they send, and the hand-written hot statements are planned from their exported text.
// On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { rateLimitKeysNaming } from '../../src/core/rate-limit.ts';
import { sweepTasks } from '../../src/core/sweep.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import * as account from '../../src/db/account.repo.ts';
import { audit } from '../../src/db/audit.repo.ts';
import { type Database, type Db, openDatabase } from '../../src/db/client.ts';
import {
  consumeFlowState,
  findFlowStateByCode,
  insertFlowState,
  issueAuthCode,
} from '../../src/db/flow-state.repo.ts';
import * as mfa from '../../src/db/mfa.repo.ts';
import { migrate } from '../../src/db/migrate.ts';
import * as ott from '../../src/db/one-time-tokens.repo.ts';
import * as outbox from '../../src/db/outbox.repo.ts';
import * as passkeys from '../../src/db/passkeys.repo.ts';
import * as limits from '../../src/db/rate-limits.repo.ts';
import * as recoveryCodes from '../../src/db/recovery-codes.repo.ts';
import * as schema from '../../src/db/schema.ts';
import * as sessions from '../../src/db/sessions.repo.ts';
import * as users from '../../src/db/users.repo.ts';
import { exportAuditWindow, readAuditLog } from '../../src/features/ops/audit-log.cli.ts';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.ts';
import {
  activeTokenOf,
  GROWING_TABLES,
  STEADY_STATE,
  scaleChunkSql,
  sessionId,
  userId,
} from '../support/scale-data.ts';

const USERS = 20_000;
const GROWING = new Set<string>(GROWING_TABLES);
/**
 * Known whole-table reads, each reachable only with the service role key: the admin user list's
 * total and its email substring search (a trigram index would serve the search; GoTrue also scans).
 */
const allowed = (r: Recorded) =>
  r.label.startsWith('admin user list') && (/count\(/i.test(r.text) || r.label.endsWith('email search'));

type Recorded = { label: string; text: string; params: unknown[] };
let database: Database;
let fresh: FreshDatabase | undefined;
let recorder: Db;
const recorded: Recorded[] = [];
let label = '';
const config = loadConfig({
  SESSIONS_TIMEBOX: String(30 * 86400),
  SESSIONS_INACTIVITY_TIMEOUT: String(7 * 86400),
});

type Client = { query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
const client = () => (database.db as unknown as { $client: Client }).$client;

/**
 * PLANS_DATABASE_URL: plan against a database `npm run bench:scale` loaded (e.g. a million accounts)
 * instead of loading 20,000 here; PLANS_ANALYZE=1: also run each statement (EXPLAIN ANALYZE, inside
 * a transaction rolled back, so the database is left as it was) and print its execution time. The
 * times are printed, not asserted: they are the sizing guide's figures (docs/sizing.md), and a timed
 * assertion would only measure the machine.
 */
const loaded = process.env.PLANS_DATABASE_URL;
const analyze = process.env.PLANS_ANALYZE === '1';

beforeAll(async () => {
  const url = process.env.DATABASE_URL;
  fresh = url && !loaded ? await createFreshDatabase(url) : undefined;
  database = await openDatabase({ databaseUrl: loaded ?? fresh?.url, dataDir: 'memory://' });
  await migrate(database);
  if (!loaded) {
    const hash =
      '$argon2id$v=19$m=19456,t=2,p=1$c2NhbGVzY2FsZXNjYWxl$2k3m1Gq0QmN4c7Qy0b1l7n3lW0i5Ck2a0k7m1Gq0QmM';
    for (let from = 0; from < USERS; from += 5_000)
      for (const statement of scaleChunkSql(from, from + 5_000, hash, STEADY_STATE))
        await client().query(statement);
    await client().query('analyze');
  }
  const logger = {
    logQuery(text: string, params: unknown[]) {
      recorded.push({ label, text, params });
    },
  };
  const $client = (database.db as unknown as { $client: PGlite | pg.Pool }).$client;
  recorder = (database.kind === 'pglite'
    ? drizzlePglite($client as PGlite, { schema, logger })
    : drizzlePg($client as pg.Pool, { schema, logger })) as unknown as PgDatabase<
    PgQueryResultHKT,
    typeof schema
  > as Db;
}, 900_000);

afterAll(async () => {
  await database?.close();
  await fresh?.drop();
});

/** Runs a repository call through the recording handle (its result and errors do not matter here). */
async function run(name: string, call: (db: Db) => Promise<unknown>) {
  label = name;
  await call(recorder).catch(() => {});
}

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
function scans(node: PlanNode, out: string[] = []): string[] {
  if (node['Relation Name'])
    out.push(
      `${node['Node Type']} ${node['Relation Name']}${node['Index Name'] ? ` (${node['Index Name']})` : ''}`,
    );
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

type Explained = { scans: string[]; ms?: number; note?: string };
type ExplainJson = Array<{ Plan: PlanNode; 'Execution Time'?: number }>;

async function explainOn(c: Client, text: string, params: unknown[], run: boolean): Promise<ExplainJson> {
  const { rows } = await c.query(`explain (${run ? 'analyze, buffers, ' : ''}format json) ${text}`, params);
  const raw = Object.values(rows[0] as Record<string, unknown>)[0];
  return (typeof raw === 'string' ? JSON.parse(raw) : raw) as ExplainJson;
}

async function plan(text: string, params: unknown[]): Promise<Explained> {
  let json = analyze ? undefined : await explainOn(client(), text, params, false);
  let note: string | undefined;
  if (!json) {
    // A statement that writes is run for real by EXPLAIN ANALYZE: roll it back. On PostgreSQL on
    // one connection of the pool (begin and rollback must reach the same one); PGlite has only one.
    // Parameters made up for planning may break a constraint when run: then the plan alone.
    const pool = client() as Client & { connect?: () => Promise<Client & { release(): void }> };
    const c = database.kind === 'postgres' && pool.connect ? await pool.connect() : undefined;
    const on = c ?? pool;
    await on.query('begin');
    try {
      json = await explainOn(on, text, params, true);
    } catch (err) {
      note = `not run: ${(err as Error).message}`;
    } finally {
      await on.query('rollback');
      c?.release();
    }
    json ??= await explainOn(client(), text, params, false);
  }
  const top = json[0] as ExplainJson[number];
  return { scans: scans(top.Plan), ms: top['Execution Time'], note };
}

const now = new Date();
const u = (i: number) => userId(i);
const s = (j: number) => sessionId(j);
const email = (i: number) => `user${i}@scale.test`;

describe(`query plans at ${loaded ? 'the loaded database' : `${USERS.toLocaleString('en')} accounts`}`, () => {
  it('no statement of an endpoint or a periodic job reads a whole growing table', async () => {
    // Accounts, sessions and GET /user's relations.
    await run('user by email', (db) => users.findUserByEmail(db, email(11)));
    await run('user by phone', (db) => users.findUserByPhone(db, '15555550100'));
    await run('user by id', (db) => users.findUserById(db, u(12)));
    await run('user by id, locked', (db) => users.lockUserById(db, u(12)));
    await run('user by pending email (POST /resend email_change)', (db) =>
      users.findUserByPendingEmail(db, 'moving107@scale.test'),
    );
    await run('user by pending phone (phone change code)', (db) =>
      users.findUserByPendingPhone(db, '15555550123'),
    );
    await run('user relations', (db) => users.loadUserRelations(db, u(13)));
    await run('relations of a page of users', (db) => users.loadRelationsOfUsers(db, [u(1), u(2), u(3)]));
    await run('admin user list: page', (db) => users.listUsersPage(db, { offset: 50, limit: 50 }));
    await run('admin user list: email search', (db) =>
      users.listUsersPage(db, { offset: 0, limit: 50, emailContains: 'user12' }),
    );
    await run('count email change confirmation', (db) => users.countEmailChangeConfirmation(db, u(14)));
    await run('update user', (db) => users.updateUser(db, u(15), { updatedAt: now }));
    await run('set identity address', (db) =>
      users.setIdentityAddress(db, u(16), 'email', email(16), true, now),
    );
    await run('apply email change', async (db) => {
      const user = await users.findUserById(db, u(107));
      if (user) await users.applyEmailChange(db, user, 'moved107@scale.test', now);
    });
    await run('confirm email', async (db) => {
      const user = await users.findUserById(db, u(17));
      if (user) await users.confirmEmail(db, { ...user, emailConfirmedAt: null }, now);
    });
    await run('soft delete user', (db) => users.softDeleteUser(db, u(18), now));
    await run('delete user', (db) => users.deleteUserById(db, u(19)));
    await run('session by id', (db) => sessions.findSessionById(db, s(40)));
    await run('delete session', (db) => sessions.deleteSession(db, s(41)));
    await run('delete user sessions', (db) => sessions.deleteUserSessions(db, u(21), s(42)));
    // The account extension endpoints (issue #14).
    await run('account sessions', (db) => account.listUserSessions(db, u(25)));
    await run('account export: audit rows about me', (db) => account.listUserAuditEvents(db, u(25), 1000));
    await run('erase account', (db) => account.eraseAccount(db, u(26)));
    await run('erase account: the rate-limit rows naming it', (db) =>
      limits.deleteCounters(db, rateLimitKeysNaming({ emails: [email(26)], phones: ['966500000026'] })),
    );
    // Passkeys (issue #17).
    const none = '00000000-0000-0000-0000-000000000003';
    await run('list passkeys', (db) => passkeys.listPasskeys(db, u(27)));
    await run('count passkeys', (db) => passkeys.countPasskeys(db, u(27)));
    await run('passkey by credential', (db) => passkeys.findPasskeyByCredentialId(db, 'plan-credential'));
    await run('user passkey', (db) => passkeys.findUserPasskey(db, u(27), none));
    await run('rename passkey', (db) => passkeys.renamePasskey(db, u(27), none, 'x', now));
    await run('record passkey use', (db) => passkeys.recordPasskeyUse(db, none, 1, 2, now));
    await run('delete passkey', (db) => passkeys.deleteUserPasskey(db, u(27), none));
    await run('passkey challenge', async (db) => {
      const c = await passkeys.insertPasskeyChallenge(db, {
        userId: u(27),
        type: 'registration',
        challenge: 'plan-challenge',
        expiresAt: now,
        now,
      });
      await passkeys.consumePasskeyChallenge(db, c.id, 'registration', u(27));
    });
    await run('queued mail (metrics)', (db) => outbox.countQueuedMail(db));
    // Links and codes, PKCE.
    await run('replace one-time token', (db) =>
      ott.replaceOneTimeToken(db, {
        userId: u(22),
        type: 'recovery',
        tokenHash: 'plan-hash',
        otpHash: 'plan-otp',
        relatesTo: email(22),
        redirectTo: null,
        expiresAt: new Date(now.getTime() + 3600_000),
        now,
      }),
    );
    await run('consume link', (db) => ott.consumeByTokenHash(db, 'plan-hash', ['recovery'], now));
    await run('consume code', (db) =>
      ott.consumeByOtp(
        db,
        email(31),
        new Map([
          ['recovery', 'x'],
          ['confirmation', 'y'],
        ]),
        now,
      ),
    );
    await run('delete user tokens', (db) => ott.deleteUserTokens(db, u(23), ['recovery']));
    await run('flow state', async (db) => {
      const f = await insertFlowState(db, {
        userId: u(24),
        codeChallenge: 'c',
        codeChallengeMethod: 's256',
        authenticationMethod: 'recovery',
        placeholderHash: 'plan-placeholder',
        expiresAt: now,
        now,
      });
      await issueAuthCode(db, f.id, 'plan-code', now, now);
      await findFlowStateByCode(db, 'plan-code');
      await consumeFlowState(db, f.id);
    });
    // MFA.
    await run('list factors', (db) => mfa.listFactors(db, u(53)));
    await run('user factor', (db) => mfa.findUserFactor(db, u(53), '00000000-0000-0000-0000-000000000000'));
    await run('expired unverified factors of a user', (db) =>
      mfa.deleteExpiredUnverifiedFactors(db, now, u(53)),
    );
    await run('expired unverified factors (sweep)', (db) => mfa.deleteExpiredUnverifiedFactors(db, now));
    await run('claim phone challenge', (db) => mfa.claimPhoneChallenge(db, u(53), now, 30));
    await run('delete factor', (db) => mfa.deleteFactor(db, '00000000-0000-0000-0000-000000000001'));
    await run('delete unverified factors of type', (db) =>
      mfa.deleteUnverifiedFactorsOfType(db, u(53), 'totp', u(1)),
    );
    await run('find challenge', (db) => mfa.findChallenge(db, u(1), u(2)));
    await run('consume challenge', (db) => mfa.consumeChallenge(db, u(2)));
    await run('delete challenge', (db) => mfa.deleteChallenge(db, u(2)));
    await run('totp step', (db) => mfa.markTotpStepUsed(db, u(3), 123));
    await run('prune totp steps', (db) => mfa.pruneUsedTotpSteps(db, u(3), 100));
    await run('recovery codes of a user', (db) => recoveryCodes.findRecoveryCodeState(db, u(53)));
    await run('recovery code unused?', (db) => recoveryCodes.isUnusedRecoveryCode(db, u(4), 'hash'));
    await run('spend recovery code', (db) => recoveryCodes.consumeRecoveryCode(db, u(4), 'hash', now));
    await run('recovery code failure', (db) =>
      recoveryCodes.recordRecoveryCodeFailure(db, u(4), 5, 900, now),
    );
    await run('clear recovery code failures', (db) => recoveryCodes.clearRecoveryCodeFailures(db, u(4)));
    await run('downgrade sessions of a factor (unenrol)', (db) =>
      mfa.downgradeSessionsOfFactor(db, '00000000-0000-0000-0000-000000000002', 'totp', ['totp'], now),
    );
    await run('upgrade session', async (db) => {
      const session = await sessions.findSessionById(db, s(60));
      if (session)
        await mfa.upgradeSession(db, {
          session,
          factorId: u(4),
          method: 'totp',
          newTokenHash: 'plan-rt',
          now,
        });
    });
    // Mail, rate limits, audit.
    await run('claim due mail', (db) => outbox.claimDueMail(db, now, 10));
    await run('mark sent', (db) => outbox.markSent(db, u(5), now, true));
    await run('mark failed', (db) => outbox.markFailed(db, u(5), 'x', null, true));
    await run('dev mailbox by address', (db) =>
      outbox.listMail(db, { limit: 20, to: email(5), kinds: 'all' }),
    );
    await run('dev mailbox message', (db) => outbox.getMail(db, u(5), 'all'));
    await run('reserve back-off', (db) => limits.reserveBackoff(db, 'backoff:plan', now, 5, 60));
    await run('back-off wait', (db) => limits.backoffWait(db, 'backoff:plan', now, 5, 60));
    await run('clear back-off', (db) => limits.clearBackoff(db, 'backoff:plan'));
    await run('audit row', (db) => audit(db, 'login', u(6), '203.0.113.1'));
    // The audit-log command's filters.
    const since = new Date(now.getTime() - 86400_000);
    await run('audit-log: newest', (db) => readAuditLog(db, { limit: 50 }));
    await run('audit-log --action', (db) => readAuditLog(db, { limit: 50, actions: ['logout'] }));
    await run('audit-log --action a,b', (db) =>
      readAuditLog(db, { limit: 50, actions: ['logout', 'user_recovery_requested'] }),
    );
    await run('audit-log --user id', (db) => readAuditLog(db, { limit: 50, user: u(7) }));
    await run('audit-log --user email', (db) => readAuditLog(db, { limit: 50, user: email(7) }));
    await run('audit-log --since', (db) => readAuditLog(db, { limit: 50, since }));
    // The breach-response export's first page (a window read through the created_at index).
    await run('audit-log export page', (db) => exportAuditWindow(db, { from: since, to: now }, 50).next());
    // Every sweep statement, at its default cut-off (with both session limits on).
    for (const task of sweepTasks(config)) {
      const cutoff = task.cutoff(now);
      if (cutoff) await run(`sweep ${task.name}`, (db) => task.statement(db, 200, cutoff));
    }

    const hot: Recorded[] = [
      {
        label: 'refresh (hot)',
        text: sessions.REFRESH_SQL,
        // A real session's active token: with PLANS_ANALYZE the rotation runs (and is rolled back).
        params: [s(81), now.toISOString(), sha256(activeTokenOf(81)), 'plan-child', null, null],
      },
      {
        // A token issued before sessions held them (a refresh_tokens row; none in this data).
        label: 'refresh, pre-format token (hot)',
        text: sessions.LEGACY_REFRESH_SQL,
        params: [s(82), now.toISOString(), 'plan-legacy', 'plan-child', null, null],
      },
      { label: 'GET /user (hot)', text: sessions.SESSION_USER_SQL, params: [s(80)] },
      {
        label: 'password session (hot)',
        text: sessions.PASSWORD_SESSION_SQL,
        params: [
          u(9),
          now.toISOString(),
          null,
          u(10),
          '[]',
          '203.0.113.1',
          'ua',
          'plan-rt2',
          u(12),
          'backoff:x',
          'known:x',
        ],
      },
      {
        label: 'sign-in gate (hot)',
        text: limits.SIGNIN_GATE_SQL,
        params: [
          'signin:ip:x',
          'signin:account:x',
          now.toISOString(),
          '30',
          '30',
          'backoff:x',
          now.toISOString(),
          '5',
          '60',
          email(9),
          'known:x',
          since.toISOString(),
        ],
      },
      {
        label: 'mail floor (hot)',
        text: limits.HIT_FLOOR_SQL,
        params: [`email:floor:${email(9)}`, now.toISOString(), '60', 'true'],
      },
    ];

    const problems: string[] = [];
    const report: string[] = [];
    const seen = new Set<string>();
    for (const r of [...recorded, ...hot]) {
      if (seen.has(r.text)) continue;
      seen.add(r.text);
      const { scans: found, ms, note } = await plan(r.text, r.params);
      const time = ms === undefined ? (note ? ` [${note}]` : '') : ` [${ms.toFixed(3)} ms]`;
      report.push(`${r.label}${time}: ${found.join(', ') || '(no table)'}`);
      const whole = found.filter((f) => f.startsWith('Seq Scan') && GROWING.has(f.split(' ')[2] as string));
      if (whole.length > 0 && !allowed(r)) problems.push(`${r.label}: ${whole.join(', ')}\n  ${r.text}`);
    }
    console.log(`plans on ${database.kind}:\n${report.join('\n')}`);
    expect(problems).toEqual([]);
    // The labels that must have been planned (a renamed or vanished call would drop out silently).
    const labels = new Set(recorded.map((r) => r.label));
    for (const l of [
      'user by pending email (POST /resend email_change)',
      'downgrade sessions of a factor (unenrol)',
      'audit-log --action',
      'sweep revoked_refresh_tokens',
      'sweep rate_limit_backoffs',
      'sweep delivered_mail',
      'sweep unconfirmed_users',
      'audit-log export page',
    ])
      expect(labels.has(l), l).toBe(true);
  }, 300_000);
});
