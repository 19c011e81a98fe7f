// Data residency (core/outbound.ts): with DATA_RESIDENCY=sa a configured foreign service stops
// start-up with one line naming its setting, OUTBOUND_ALLOW lets it through by name, in-country and
// operator endpoints pass; and the README's "Every outbound call" list is the table's rendering.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig, repoRoot } from '../../src/config.ts';
import {
  assertResidency,
  OUTBOUND_END,
  OUTBOUND_START,
  renderOutboundDocs,
  reviewOutbound,
} from '../../src/core/outbound.ts';
import { StartupError } from '../../src/core/startup-error.ts';
import { MAIN, runEntry, serviceEnv } from '../support/entry-process.ts';
import { startTestServer } from '../support/test-server.ts';

vi.setConfig({ testTimeout: 180_000 });

const HIBP = { PASSWORD_HIBP_ENABLED: 'true' };
const GOOGLE = {
  EXTERNAL_GOOGLE_ENABLED: 'true',
  EXTERNAL_GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com',
  EXTERNAL_GOOGLE_SECRET: 'google-secret',
};

/** A configuration with the delivery settings as raw env values (tolerant of this release's schema). */
function configWith(env: Record<string, string>, raw: { sms?: string; whatsapp?: string } = {}) {
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  if (raw.sms) config.residency.smsProvider = raw.sms;
  if (raw.whatsapp) config.residency.whatsappProvider = raw.whatsapp;
  return config;
}

describe('the residency rule', () => {
  it('refuses every configured foreign call, naming its setting, unless allowed by name', () => {
    const sa = { DATA_RESIDENCY: 'sa' };
    const foreign = configWith({ ...sa, ...HIBP, ...GOOGLE }, { sms: 'twilio', whatsapp: 'meta' });
    expect(() => assertResidency(foreign)).toThrow(StartupError);
    expect(() => assertResidency(foreign)).toThrow(
      /^DATA_RESIDENCY=sa refuses outbound calls outside the country: SMS_PROVIDER=twilio \(twilio: Twilio/,
    );
    const message = (() => {
      try {
        assertResidency(foreign);
      } catch (err) {
        return (err as Error).message;
      }
    })();
    for (const s of ['WHATSAPP_PROVIDER=meta', 'PASSWORD_HIBP_ENABLED=true', 'EXTERNAL_GOOGLE_ENABLED=true'])
      expect(message).toContain(s);
    expect(message).toContain('OUTBOUND_ALLOW=twilio,whatsapp-meta,hibp,google');

    const allowed = configWith(
      { ...sa, ...HIBP, ...GOOGLE, OUTBOUND_ALLOW: ' Twilio, whatsapp-meta ,hibp,google' },
      { sms: 'twilio', whatsapp: 'meta' },
    );
    expect(assertResidency(allowed).refused).toEqual([]);
    // Allowing only some leaves the rest refused.
    const partly = configWith({ ...sa, ...HIBP, ...GOOGLE, OUTBOUND_ALLOW: 'hibp' });
    expect(reviewOutbound(partly).refused.map((r) => r.name)).toEqual(['google']);
  });

  it('passes Saudi providers; operator endpoints pass and are reported; off means no rule', () => {
    const sa = { DATA_RESIDENCY: 'sa' };
    for (const sms of ['unifonic', 'taqnyat', 'msegat'])
      expect(assertResidency(configWith(sa, { sms, whatsapp: 'taqnyat' })).refused).toEqual([]);
    const operator = configWith({
      ...sa,
      ...HIBP,
      PASSWORD_HIBP_API_URL: 'https://hibp.internal.example.sa',
      SECURITY_CAPTCHA_ENABLED: 'true',
      SECURITY_CAPTCHA_SECRET: 's',
      SECURITY_CAPTCHA_VERIFY_URL: 'https://captcha.example.sa/siteverify',
      SMTP_URL: 'smtp://relay.example.sa:587',
      SMS_PROVIDER: 'webhook',
      SMS_WEBHOOK_URL: 'https://sms.example.sa/send',
    });
    const report = assertResidency(operator);
    expect(report.refused).toEqual([]);
    expect(report.operator).toEqual(
      expect.arrayContaining([
        { name: 'hibp', setting: 'PASSWORD_HIBP_ENABLED=true', target: 'hibp.internal.example.sa' },
        { name: 'captcha', setting: 'SECURITY_CAPTCHA_ENABLED=true', target: 'captcha.example.sa' },
        { name: 'smtp', setting: 'SMTP_URL', target: 'relay.example.sa:587' },
        { name: 'sms-webhook', setting: 'SMS_WEBHOOK_URL', target: 'sms.example.sa' },
      ]),
    );
    // The public CAPTCHA verifier is foreign.
    const captcha = configWith({ ...sa, SECURITY_CAPTCHA_ENABLED: 'true', SECURITY_CAPTCHA_SECRET: 's' });
    expect(() => assertResidency(captcha)).toThrow(/SECURITY_CAPTCHA_ENABLED=true \(captcha:/);
    // Without DATA_RESIDENCY nothing is refused.
    expect(assertResidency(configWith({ ...HIBP, ...GOOGLE }, { sms: 'twilio' })).refused).toEqual([]);
  });

  it('refuses an OUTBOUND_ALLOW name that is no outbound call (a typo must not pass silently)', () => {
    expect(() =>
      assertResidency(configWith({ DATA_RESIDENCY: 'sa', OUTBOUND_ALLOW: 'hibp,twillio' })),
    ).toThrow(/^OUTBOUND_ALLOW: unknown outbound call twillio \(known: twilio,/);
  });

  it('refuses a DATA_RESIDENCY it does not know, naming the setting', () => {
    expect(() => loadConfig({ DATA_RESIDENCY: 'ae' })).toThrow(/DATA_RESIDENCY/);
  });
});

describe('at start-up', () => {
  it('the service refuses to start with a foreign service, and starts once it is allowed', async () => {
    await expect(startTestServer({ DATA_RESIDENCY: 'sa', ...HIBP })).rejects.toThrow(
      /DATA_RESIDENCY=sa refuses .*PASSWORD_HIBP_ENABLED=true \(hibp:/,
    );
    const t = await startTestServer({ DATA_RESIDENCY: 'sa', ...HIBP, OUTBOUND_ALLOW: 'hibp' });
    try {
      expect((await t.api('/health')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('the real entry point: one line on stderr naming the setting, exit 1', async () => {
    const r = await runEntry(
      process.execPath,
      [MAIN],
      serviceEnv(0, { DATA_RESIDENCY: 'sa', ...GOOGLE }),
      60_000,
    );
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^DATA_RESIDENCY=sa refuses outbound calls outside the country: EXTERNAL_GOOGLE_ENABLED=true \(google: Google\)\. .*OUTBOUND_ALLOW=google$/,
    );
    expect(r.stderr).not.toContain('google-secret');
  });
});

it("the README's outbound list is rendered from the table (run `npm run docs:settings` if not)", () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block = readme.slice(
    readme.indexOf(OUTBOUND_START),
    readme.indexOf(OUTBOUND_END) + OUTBOUND_END.length,
  );
  expect(block).toBe(renderOutboundDocs());
  expect(block).toContain('| `twilio` | `SMS_PROVIDER=twilio` |');
});
