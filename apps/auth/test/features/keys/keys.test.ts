// Signing-key rotation and local verification: JWKS cache headers, getClaims() before and after a
// rotation, old tokens valid until retirement, and the keys:rotate command itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSigningKey, retireSigningKeys } from '../../../src/db/signing-keys.repo.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Namaa-keys-Pass-6670';

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

  it('the keys:rotate command adds a signing key and demotes the old one to verify-only', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'namaa-keys-'));
    try {
      const run = (...args: string[]) =>
        spawnSync(process.execPath, ['src/features/keys/rotate-keys.cli.ts', ...args], {
          cwd: join(import.meta.dirname, '../../..'),
          env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '1', NODE_ENV: 'test' },
          encoding: 'utf8',
        });
      const rotated = run();
      expect(rotated.status, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/New signing key [0-9a-f-]{36} is active/);
      expect(rotated.stdout.match(/verify_only/g)).toHaveLength(1);
      // (--retire and --list use the same functions tested above; one run keeps this test short.)
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
