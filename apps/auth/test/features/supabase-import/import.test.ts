// Moving in from Supabase: a dump the test writes in GoTrue's `auth` schema shape (bcrypt hashes made
// by bcryptjs; recovery codes hashed as GoTrue does, argon2id PHC strings), imported by `npm run
// import` as a process, then signed in through supabase-js: ids kept, bcrypt verified and rehashed to
// argon2id, identities, a TOTP factor and its recovery codes carried over (a spent code stays spent),
// codes that cannot move reported. On PostgreSQL also from a live source database.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { generate, generateSecret } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.ts';
import { cliArgs } from '../../support/entry-process.ts';
import { createFreshDatabase, type FreshDatabase } from '../../support/fresh-database.ts';
import { type AuthSchemaRows, loadIntoDatabase, renderDump } from '../../support/gotrue-auth-schema.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

const CLI = join(import.meta.dirname, '../../../src/features/supabase-import/import.cli.ts');
const PG = process.env.DATABASE_URL;
const tag = randomUUID().slice(0, 8);
const PASSWORD = 'Moved-in-from-Supabase-31';
const totpSecret = generateSecret({ length: 20 });

const ada = { id: randomUUID(), email: `ada-${tag}@import.test`, identity: randomUUID() };
const phoneUser = {
  id: randomUUID(),
  phone: `9665${Date.now().toString().slice(-8)}`,
  identity: randomUUID(),
};
const mfaUser = {
  id: randomUUID(),
  email: `mfa-${tag}@import.test`,
  factor: randomUUID(),
  codesFactor: randomUUID(),
  codeSet: randomUUID(),
};
const firebaseUser = { id: randomUUID(), email: `fb-${tag}@import.test` };
/**
 * mfaUser's recovery codes in GoTrue's alphabet (RFC 4648 base32, lower case: with o, i and l,
 * which our own codes never hold); the second was spent in the old project.
 */
const gotrueCodes = ['k4mwx7qp2abrht3z', 'olivia2345abcdef', 'zzzz7777lllqiioo'];
/** GoTrue's hashes of them: argon2id, m=19456, t=1, p=1, a salt each (filled in beforeAll). */
let gotrueCodeHashes: string[] = [];

function sourceRows(): AuthSchemaRows {
  const hash = bcrypt.hashSync(PASSWORD, 10); // $2b$, as GoTrue's Go bcrypt writes $2a$; both verify
  const user = (
    u: { id: string; email?: string; phone?: string },
    extra: AuthSchemaRows['users'][number] = {},
  ) => ({
    instance_id: '00000000-0000-0000-0000-000000000000',
    id: u.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: u.email ?? null,
    encrypted_password: hash,
    email_confirmed_at: u.email ? '2024-03-01 10:00:00.123456+00' : null,
    confirmation_token: '',
    recovery_token: '',
    email_change_token_new: '',
    email_change: '',
    last_sign_in_at: '2024-05-01 08:30:00+00',
    raw_app_meta_data: { provider: u.email ? 'email' : 'phone', providers: [u.email ? 'email' : 'phone'] },
    raw_user_meta_data: {},
    is_super_admin: null,
    created_at: '2024-03-01 09:59:59.5+00',
    updated_at: '2024-05-01 08:30:00+00',
    phone: u.phone ?? null,
    phone_confirmed_at: u.phone ? '2024-03-02 11:00:00+00' : null,
    is_sso_user: false,
    is_anonymous: false,
    ...extra,
  });
  const identity = (id: string, userId: string, provider: string, data: Record<string, unknown>) => ({
    provider_id: userId,
    user_id: userId,
    identity_data: { sub: userId, ...data },
    provider,
    last_sign_in_at: '2024-05-01 08:30:00+00',
    created_at: '2024-03-01 10:00:00+00',
    updated_at: '2024-03-01 10:00:00+00',
    id,
  });
  return {
    users: [
      // Metadata with a tab, a newline and a backslash: COPY's escapes must come back intact.
      user(ada, {
        raw_user_meta_data: { full_name: 'Ada\tLovelace', note: 'line 1\nline 2', path: 'C:\\x' },
      }),
      user(phoneUser),
      user(mfaUser),
      user(firebaseUser, { encrypted_password: '$fbscrypt$v=1,n=14,r=8,p=1,ss=Bw==,sk=abc$salt$hash' }),
    ],
    identities: [
      identity(ada.identity, ada.id, 'email', { email: ada.email, email_verified: true }),
      identity(phoneUser.identity, phoneUser.id, 'phone', { phone: phoneUser.phone }),
      identity(randomUUID(), mfaUser.id, 'email', { email: mfaUser.email }),
    ],
    mfa_factors: [
      {
        id: mfaUser.factor,
        user_id: mfaUser.id,
        friendly_name: 'phone app',
        factor_type: 'totp',
        status: 'verified',
        created_at: '2024-04-01 10:00:00+00',
        updated_at: '2024-04-01 10:00:00+00',
        secret: totpSecret,
        phone: null,
      },
      {
        id: randomUUID(),
        user_id: mfaUser.id,
        friendly_name: 'abandoned',
        factor_type: 'totp',
        status: 'unverified',
        created_at: '2024-04-01 10:00:00+00',
        updated_at: '2024-04-01 10:00:00+00',
        secret: generateSecret({ length: 20 }),
        phone: null,
      },
      {
        id: randomUUID(),
        user_id: mfaUser.id,
        friendly_name: 'key',
        factor_type: 'webauthn',
        status: 'verified',
        created_at: '2024-04-01 10:00:00+00',
        updated_at: '2024-04-01 10:00:00+00',
        secret: null,
        phone: null,
        web_authn_credential: { ID: 'abc' },
      },
      recoveryFactor(mfaUser.codesFactor, mfaUser.id),
      // Codes hashed some other way, and codes with no other factor: both left behind.
      recoveryFactor(phoneUserCodes.factor, phoneUser.id),
      recoveryFactor(firebaseCodes.factor, firebaseUser.id),
    ],
    mfa_recovery_code_sets: [
      codeSet(mfaUser.codeSet, mfaUser.id, mfaUser.codesFactor),
      codeSet(phoneUserCodes.set, phoneUser.id, phoneUserCodes.factor),
      codeSet(firebaseCodes.set, firebaseUser.id, firebaseCodes.factor),
    ],
    mfa_recovery_codes: [
      ...gotrueCodeHashes.map((h, i) => ({
        id: randomUUID(),
        mfa_recovery_code_set_id: mfaUser.codeSet,
        code_hash: h,
        consumed_at: i === 1 ? '2024-06-01 12:00:00+00' : null,
        created_at: '2024-04-01 10:00:00+00',
      })),
      {
        id: randomUUID(),
        mfa_recovery_code_set_id: phoneUserCodes.set,
        code_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        consumed_at: null,
        created_at: '2024-04-01 10:00:00+00',
      },
      {
        id: randomUUID(),
        mfa_recovery_code_set_id: firebaseCodes.set,
        code_hash: gotrueCodeHashes[0] as string,
        consumed_at: null,
        created_at: '2024-04-01 10:00:00+00',
      },
    ],
  };
}

const phoneUserCodes = { factor: randomUUID(), set: randomUUID() };
const firebaseCodes = { factor: randomUUID(), set: randomUUID() };

function recoveryFactor(id: string, userId: string) {
  return {
    id,
    user_id: userId,
    friendly_name: 'Recovery codes',
    factor_type: 'recovery_code',
    status: 'verified',
    created_at: '2024-04-02 10:00:00+00',
    updated_at: '2024-04-02 10:00:00+00',
    secret: null,
    phone: null,
  };
}

function codeSet(id: string, userId: string, factorId: string) {
  return {
    id,
    user_id: userId,
    mfa_factor_id: factorId,
    failed_verification_count: '1',
    verification_locked_until: null,
    created_at: '2024-04-02 10:00:00+00',
    updated_at: '2024-04-02 10:00:00+00',
  };
}

type Report = {
  read: { users: number; identities: number; factors: number; recoveryCodes: number };
  imported: { users: number; identities: number; factors: number; recoveryCodes: number };
  skippedUsers: string[];
  warnings: string[];
};

function runImport(args: string[], target: Record<string, string>) {
  const r = spawnSync(process.execPath, cliArgs(CLI, ...args), {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...target },
    encoding: 'utf8',
    timeout: 280_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
let dumpPath: string;
let targetDb: FreshDatabase | undefined;
let target: Record<string, string>;
let t: TestServer;

beforeAll(async () => {
  // (the hook's own timeout: a fresh PostgreSQL database may be slow to create under load)
  dir = mkdtempSync(join(tmpdir(), 'namaa-import-'));
  dumpPath = join(dir, 'supabase-auth.sql');
  gotrueCodeHashes = await Promise.all(
    gotrueCodes.map((c) => argon2Hash(c, { memoryCost: 19456, timeCost: 1, parallelism: 1 })),
  );
  writeFileSync(dumpPath, renderDump(sourceRows()));
  // The target: this service's database, a fresh PostgreSQL database or PGlite on disk (the command
  // runs as its own process, before the service opens the embedded database).
  targetDb = PG ? await createFreshDatabase(PG) : undefined;
  target = targetDb ? { DATABASE_URL: targetDb.url } : { DATA_DIR: join(dir, 'data') };
});

afterAll(async () => {
  await t?.close();
  await targetDb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

// Each run is a node process opening and migrating the target: slow on a loaded machine.
describe('npm run import from a pg_dump of a Supabase auth schema', { timeout: 300_000 }, () => {
  it('imports users, identities and verified TOTP factors, reporting what it left out', () => {
    const r = runImport([dumpPath, '--json'], target);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.read).toEqual({ users: 4, identities: 3, factors: 6, recoveryCodes: 5 });
    expect(report.imported).toEqual({ users: 4, identities: 3, factors: 2, recoveryCodes: 3 });
    expect(report.warnings.join('\n')).toMatch(/unsupported kind/);
    expect(report.warnings.join('\n')).toMatch(/webauthn factor/);
    // Recovery codes that cannot move are reported one line per user, never guessed.
    expect(report.warnings).toContain(
      `recovery codes (factor ${phoneUserCodes.factor}) of user ${phoneUser.id}: not moved, codes stored in a form this service cannot verify (the user makes new ones)`,
    );
    expect(report.warnings).toContain(
      `recovery codes (factor ${firebaseCodes.factor}) of user ${firebaseUser.id}: not moved, no other factor of the user moved with them (the user makes new ones)`,
    );
    expect(report.warnings.join('\n')).not.toContain(mfaUser.codesFactor);
    expect(report.warnings.join('\n')).not.toContain(PASSWORD);
  });

  it('a second run changes nothing: every user is reported as already here', () => {
    const r = runImport([dumpPath, '--json'], target);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.imported.users).toBe(0);
    expect(report.skippedUsers.sort()).toEqual([ada.id, phoneUser.id, mfaUser.id, firebaseUser.id].sort());
  });

  it('refuses a file without auth.users, an unknown option and a missing file (exit 1)', () => {
    const empty = join(dir, 'empty.sql');
    writeFileSync(empty, 'SELECT 1;\n');
    const r = runImport([empty], target);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no `COPY auth.users` block/);
    expect(runImport([join(dir, 'nope.sql'), '--force'], target).code).toBe(1);
  });

  it('imported users sign in through supabase-js with their Supabase passwords; ids, metadata and identities kept', async () => {
    t = await startTestServer(target);
    const sb = t.client();
    const { data, error } = await sb.auth.signInWithPassword({ email: ada.email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data.user?.id).toBe(ada.id);
    expect(data.user?.user_metadata).toEqual({
      full_name: 'Ada\tLovelace',
      note: 'line 1\nline 2',
      path: 'C:\\x',
    });
    expect(data.user?.identities?.map((i) => [i.identity_id, i.provider])).toEqual([[ada.identity, 'email']]);
    expect(data.user?.created_at).toBe('2024-03-01T09:59:59.500Z');
    // The bcrypt hash verified, then was replaced by argon2id.
    const [row] = await t.server.deps.db.select().from(users).where(eq(users.id, ada.id));
    expect(row?.encryptedPassword?.startsWith('$argon2id$')).toBe(true);
    // …and the password still works with the new hash.
    const again = await t.client().auth.signInWithPassword({ email: ada.email, password: PASSWORD });
    expect(again.error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email: ada.email, password: 'wrong-password-1' })).error
        ?.code,
    ).toBe('invalid_credentials');

    // The phone user (phone password sign-in is not offered here): kept with its phone identity.
    const [phoneRow] = await t.server.deps.db.select().from(users).where(eq(users.id, phoneUser.id));
    expect(phoneRow).toMatchObject({
      phone: phoneUser.phone,
      encryptedPassword: expect.stringMatching(/^\$2b\$/),
    });
    expect(phoneRow?.phoneConfirmedAt?.toISOString()).toBe('2024-03-02T11:00:00.000Z');

    // A hash of a kind the service cannot verify: imported without a password.
    const fb = await t.client().auth.signInWithPassword({ email: firebaseUser.email, password: PASSWORD });
    expect(fb.error?.code).toBe('invalid_credentials');
  });

  it("the TOTP factor moved with its secret: the user reaches aal2 with their authenticator's code", async () => {
    const sb = t.client();
    const signIn = await sb.auth.signInWithPassword({ email: mfaUser.email, password: PASSWORD });
    expect(signIn.error).toBeNull();
    const factors = await sb.auth.mfa.listFactors();
    expect(factors.data?.totp.map((f) => f.id)).toEqual([mfaUser.factor]);
    const code = await generate({ secret: totpSecret });
    const verified = await sb.auth.mfa.challengeAndVerify({ factorId: mfaUser.factor, code });
    expect(verified.error).toBeNull();
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data?.currentLevel).toBe('aal2');
  });

  it('the recovery codes moved as GoTrue hashed them: an unused one reaches aal2 once, a spent one never', async () => {
    const { data, error } = await t
      .client()
      .auth.signInWithPassword({ email: mfaUser.email, password: PASSWORD });
    expect(error).toBeNull();
    const token = data.session?.access_token as string;
    const rc = async (method: string, path: string, body?: unknown) => {
      const res = await t.api(path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-supabase-api-version': '2024-01-01' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await rc('GET', '/factors/recovery-codes')).body).toEqual({
      id: mfaUser.codesFactor,
      total: 3,
      remaining: 2,
    });
    // Spent in the old project: refused.
    expect((await rc('POST', '/factors/recovery-codes/verify', { code: gotrueCodes[1] })).status).toBe(422);
    // Typed as a person would (upper case, in groups): GoTrue's o, i and l are not read as 0 and 1.
    const typed = (gotrueCodes[0] as string).toUpperCase().replace(/(.{4})(?!$)/g, '$1-');
    const ok = await rc('POST', '/factors/recovery-codes/verify', { code: typed });
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.access_token as string)).toMatchObject({ aal: 'aal2', sub: mfaUser.id });
    expect((await rc('POST', '/factors/recovery-codes/verify', { code: typed })).status).toBe(422);
    expect((await rc('GET', '/factors/recovery-codes')).body).toMatchObject({ remaining: 1 });
    const third = await t.client().auth.signInWithPassword({ email: mfaUser.email, password: PASSWORD });
    const res = await t.api('/factors/recovery-codes/verify', {
      method: 'POST',
      headers: { authorization: `Bearer ${third.data.session?.access_token}` },
      body: JSON.stringify({ code: `  ${gotrueCodes[2]} ` }),
    });
    expect(res.status).toBe(200);
  });
});

describe.skipIf(!PG)(
  'npm run import from a live Supabase database (PostgreSQL)',
  { timeout: 600_000 },
  () => {
    it('reads the source in one snapshot and imports it into another database', async () => {
      const source = await createFreshDatabase(PG as string, 'namaa_src');
      const fresh = await createFreshDatabase(PG as string);
      try {
        await loadIntoDatabase(source.url, sourceRows());
        const dry = runImport([source.url, '--json', '--dry-run'], { DATABASE_URL: fresh.url });
        expect(dry.code).toBe(0);
        const r = runImport([source.url, '--json'], { DATABASE_URL: fresh.url });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const report = JSON.parse(r.stdout) as Report;
        expect(report.imported).toEqual({ users: 4, identities: 3, factors: 2, recoveryCodes: 3 });
        // Its own database as the source is refused.
        const self = runImport([fresh.url], { DATABASE_URL: fresh.url });
        expect(self.code).toBe(1);
        const server = await startTestServer({ DATABASE_URL: fresh.url });
        try {
          const { data, error } = await server
            .client()
            .auth.signInWithPassword({ email: ada.email, password: PASSWORD });
          expect(error).toBeNull();
          expect(data.user?.id).toBe(ada.id);
          expect(data.user?.user_metadata.note).toBe('line 1\nline 2');
        } finally {
          await server.close();
        }
      } finally {
        await source.drop();
        await fresh.drop();
      }
    });
  },
);
