// Signing-key rotation and local verification: JWKS cache headers, getClaims() before and after a
// rotation, old tokens valid until retirement, and the keys:rotate command itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addSigningKey,
  listSigningKeys,
  promoteStandbyKey,
  retireSigningKeys,
  stageSigningKey,
} from '../../../src/db/signing-keys.repo.ts';
import { STANDBY_MIN_SECONDS } from '../../../src/features/keys/rotate-keys.cli.ts';
import { cliArgs } from '../../support/entry-process.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Namaa-keys-Pass-6670';

/**
 * Runs the keys:rotate command on its own PGlite directory. Asynchronously: a synchronous spawn
 * would stall this process's event loop, and with it the in-process test server, for the whole run.
 */
function rotateCli(
  dataDir: string,
  ...args: string[]
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, cliArgs('src/features/keys/rotate-keys.cli.ts', ...args), {
    cwd: join(import.meta.dirname, '../../..'),
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '1', NODE_ENV: 'test' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

async function jwks() {
  const res = await t.api('/.well-known/jwks.json');
  expect(res.headers.get('cache-control')).toBe('public, max-age=600');
  return ((await res.json()) as { keys: Array<{ kid: string; alg: string; key_ops: string[]; d?: string }> })
    .keys;
}

describe('signing keys', () => {
  it('getClaims verifies locally; rotation keeps old tokens valid until the old key is retired', async () => {
    const email = uniqueEmail('keys');
    const oldClient = t.client();
    const { data } = await oldClient.auth.signUp({ email, password: PASSWORD });
    const oldToken = data.session?.access_token as string;
    const oldKid = decodeProtectedHeader(oldToken).kid as string;
    const before = await jwks();
    expect(before.map((k) => k.kid)).toEqual([oldKid]);
    expect(before[0]).toMatchObject({ alg: 'ES256', key_ops: ['verify'], use: 'sig' });
    expect(before[0]?.d).toBeUndefined();

    const claims = await oldClient.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.email).toBe(email);
    expect(claims.data?.header.kid).toBe(oldKid);

    // Step 1: a new signing key (what `npm run keys:rotate` does), picked up by the running service.
    const db = t.server.deps.db;
    const added = await addSigningKey(db, new Date());
    await t.server.deps.keys.reload();
    expect((await jwks()).map((k) => k.kid).sort()).toEqual([oldKid, added.kid].sort());
    const fresh = t.client();
    const signIn = await fresh.auth.signInWithPassword({ email, password: PASSWORD });
    const newToken = signIn.data.session?.access_token as string;
    expect(decodeProtectedHeader(newToken).kid).toBe(added.kid);
    // The same client cached the old JWKS: an unknown kid makes it refetch.
    const newClaims = await oldClient.auth.getClaims(newToken);
    expect(newClaims.error).toBeNull();
    expect(newClaims.data?.header.kid).toBe(added.kid);
    // The old token still works everywhere.
    expect((await oldClient.auth.getClaims(oldToken)).error).toBeNull();
    expect((await oldClient.auth.getUser(oldToken)).error).toBeNull();

    // Step 2 too early: nothing signed with the old key may have expired yet, so it stays.
    const early = await retireSigningKeys(db, new Date(), t.config.JWT_EXPIRY);
    expect(early.retired).toEqual([]);
    expect(early.kept.map((k) => k.kid)).toEqual([oldKid]);
    // After JWT_EXPIRY (+ grace) the old key is retired: it leaves the JWKS and its tokens fail.
    const later = new Date(Date.now() + (t.config.JWT_EXPIRY + 121) * 1000);
    expect((await retireSigningKeys(db, later, t.config.JWT_EXPIRY)).retired).toEqual([oldKid]);
    await t.server.deps.keys.reload();
    expect((await jwks()).map((k) => k.kid)).toEqual([added.kid]);
    const res = await t.api('/user', { headers: { authorization: `Bearer ${oldToken}` } });
    expect(res.status).toBe(403);
    expect((await res.json()).error_code).toBe('bad_jwt');
    expect((await fresh.auth.getUser()).error).toBeNull();
  });

  it('the keys:rotate command adds a signing key and demotes the old one to verify-only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'namaa-keys-'));
    try {
      const run = (...args: string[]) => rotateCli(dataDir, ...args);
      const rotated = await run();
      expect(rotated.status, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/New signing key [0-9a-f-]{36} is active/);
      expect(rotated.stdout.match(/verify_only/g)).toHaveLength(1);
      // (--retire and --list use the same functions tested above; one run keeps this test short.)
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('with a standby step, a verifier holding a cached key set never meets an unknown kid', async () => {
    const db = t.server.deps.db;
    const email = uniqueEmail('standby');
    const client = t.client();
    const signedUp = await client.auth.signUp({ email, password: PASSWORD });
    expect(signedUp.error).toBeNull();
    const token0 = signedUp.data.session?.access_token as string;
    const signer0 = decodeProtectedHeader(token0).kid as string;
    const signIn = async () => {
      const { data } = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
      return data.session?.access_token as string;
    };
    // What a verifier (an API server, PostgREST, getClaims) fetched and keeps for up to 10 minutes.
    const fetchKeySet = async () => (await (await t.api('/.well-known/jwks.json')).json()) as JSONWebKeySet;
    const verifies = async (token: string, set: JSONWebKeySet) =>
      jwtVerify(token, createLocalJWKSet(set), { algorithms: ['ES256'] }).then(
        () => true,
        () => false,
      );
    const cachedBefore = await fetchKeySet();

    // Step 1, --standby: published by every instance once reloaded, but signing nothing yet.
    const staged = new Date();
    const { key: standby, created } = await stageSigningKey(db, staged);
    expect(created).toBe(true);
    expect((await stageSigningKey(db, staged)).created).toBe(false); // one standby at a time
    await t.server.deps.keys.reload();
    const cachedAfterStandby = await fetchKeySet();
    expect(cachedAfterStandby.keys.map((k) => k.kid)).toEqual([signer0, standby.kid]); // the signer first
    const tokenDuring = await signIn();
    expect(decodeProtectedHeader(tokenDuring).kid).toBe(signer0);

    // Step 2, --promote: refused while a cached key set may still lack the standby key.
    const early = await promoteStandbyKey(db, new Date(staged.getTime() + 60_000), STANDBY_MIN_SECONDS);
    expect(early).toMatchObject({ outcome: 'too_early', kid: standby.kid });
    const promotedAt = new Date(staged.getTime() + (STANDBY_MIN_SECONDS + 1) * 1000);
    const promoted = await promoteStandbyKey(db, promotedAt, STANDBY_MIN_SECONDS);
    expect(promoted).toMatchObject({ outcome: 'promoted', demoted: [signer0] });
    await t.server.deps.keys.reload();
    const token1 = await signIn();
    expect(decodeProtectedHeader(token1).kid).toBe(standby.kid);
    // The key set cached after the standby step verifies the new tokens without a refetch; the one
    // cached before it would not have (what a one-step rotation does to such a verifier).
    expect(await verifies(token1, cachedAfterStandby)).toBe(true);
    expect(await verifies(token1, cachedBefore)).toBe(false);
    // Tokens of the previous key stay valid, locally and at the service.
    expect(await verifies(tokenDuring, cachedAfterStandby)).toBe(true);
    expect((await client.auth.getUser(token0)).error).toBeNull();
    expect((await client.auth.getClaims(token1)).error).toBeNull();

    // Step 3, --retire: the previous key signed until the promotion (not until the standby step), so
    // it stays JWT_EXPIRY + 120 s after the promotion.
    const expiry = t.config.JWT_EXPIRY;
    const tooSoon = await retireSigningKeys(
      db,
      new Date(promotedAt.getTime() + (expiry + 119) * 1000),
      expiry,
    );
    expect(tooSoon.kept.map((k) => k.kid)).toContain(signer0);
    const due = await retireSigningKeys(db, new Date(promotedAt.getTime() + (expiry + 121) * 1000), expiry);
    expect(due.retired).toContain(signer0);
    const states = new Map((await listSigningKeys(db)).map((k) => [k.kid, k.status]));
    expect(states.get(standby.kid)).toBe('active');
    expect(states.get(signer0)).toBe('retired');
  });

  it('keys:rotate --standby, then --promote (refused too early, then forced)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'namaa-keys-'));
    try {
      const run = (...args: string[]) => rotateCli(dataDir, ...args);
      const staged = await run('--standby');
      expect(staged.status, staged.stderr).toBe(0);
      expect(staged.stdout).toMatch(
        /Standby key [0-9a-f-]{36} is published in the JWKS; it signs nothing yet/,
      );
      expect(staged.stdout).toMatch(/\bstandby\b/);
      const early = await run('--promote');
      expect(early.status).toBe(2);
      expect(early.stderr).toMatch(/published less than 660 s ago/);
      const forced = await run('--promote', '--force');
      expect(forced.status, forced.stderr).toBe(0);
      expect(forced.stdout).toMatch(/now signs; [0-9a-f-]{36} became verify-only/);
      expect(forced.stdout).not.toMatch(/\bstandby\b/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
