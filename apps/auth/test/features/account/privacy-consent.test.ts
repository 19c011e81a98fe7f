// PDPL consent (core/privacy-consent.ts): a sign-up whose client states acceptance of the privacy
// notice has PRIVACY_NOTICE_VERSION and the time recorded on the user, out of user_metadata, and
// both come back in the account export. PGlite, and PostgreSQL when DATABASE_URL is set.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', PRIVACY_NOTICE_VERSION: '2026-11-test' });
});
afterAll(async () => {
  await t?.close();
});

const row = async (id: string) => (await t.server.deps.db.select().from(users).where(eq(users.id, id)))[0];

async function exportOf(accessToken: string) {
  const r = await t.api('/account/export', { headers: { authorization: `Bearer ${accessToken}` } });
  expect(r.status).toBe(200);
  return (await r.json()) as { privacy_notice: { version: string | null; accepted_at: string | null } };
}

describe('privacy notice consent at sign-up', () => {
  it('records the configured version and the time, keeps it out of user_metadata, exports it', async () => {
    const before = Date.now();
    const { data, error } = await t.client().auth.signUp({
      email: uniqueEmail('consent'),
      password: 'correct horse battery',
      options: { data: { privacy_notice_accepted: true, team: 'blue' } },
    });
    expect(error).toBeNull();
    const user = data.user!;
    expect(user.user_metadata).toEqual(expect.objectContaining({ team: 'blue' }));
    expect(user.user_metadata).not.toHaveProperty('privacy_notice_accepted');
    const stored = await row(user.id);
    expect(stored?.privacyNoticeVersion).toBe('2026-11-test');
    expect(stored?.privacyNoticeAcceptedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stored?.userMetadata).not.toHaveProperty('privacy_notice_accepted');

    const exported = await exportOf(data.session!.access_token);
    expect(exported.privacy_notice).toEqual({
      version: '2026-11-test',
      accepted_at: stored?.privacyNoticeAcceptedAt?.toISOString(),
    });
    // The user cannot forge a consent record through the metadata they own.
    const client = t.client();
    await client.auth.setSession({
      access_token: data.session!.access_token,
      refresh_token: data.session!.refresh_token,
    });
    await client.auth.updateUser({ data: { privacy_notice_accepted: false } });
    expect((await row(user.id))?.privacyNoticeVersion).toBe('2026-11-test');
  });

  it('records nothing without acceptance, or with anything but true (no error either way)', async () => {
    for (const given of [undefined, 'yes', 1, false, { v: true }]) {
      const { data, error } = await t.client().auth.signUp({
        email: uniqueEmail('no-consent'),
        password: 'correct horse battery',
        options: { data: given === undefined ? {} : { privacy_notice_accepted: given } },
      });
      expect(error, String(given)).toBeNull();
      expect(data.user!.user_metadata).not.toHaveProperty('privacy_notice_accepted');
      const stored = await row(data.user!.id);
      expect(stored?.privacyNoticeVersion).toBeNull();
      expect(stored?.privacyNoticeAcceptedAt).toBeNull();
      expect((await exportOf(data.session!.access_token)).privacy_notice).toEqual({
        version: null,
        accepted_at: null,
      });
    }
  });
});
