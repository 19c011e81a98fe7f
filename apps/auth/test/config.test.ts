// Unit tests for the ground modules: the API-version header (errors.ts) and the settings (config.ts).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { requestedApiVersion } from '../src/errors.ts';

describe('errors and config', () => {
  it('accepts only API versions that are dates from 2024-01-01', () => {
    expect(requestedApiVersion('2024-01-01')).toBe('2024-01-01');
    expect(requestedApiVersion('2023-12-31')).toBeUndefined();
    expect(requestedApiVersion('banana')).toBeUndefined();
    expect(requestedApiVersion(undefined)).toBeUndefined();
  });

  it('has the runtime-contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      SITE_URL: 'http://localhost:3000',
      ANON_KEY: 'sb_publishable_namaa_development_key',
      JWT_EXPIRY: 3600,
      MAILER_AUTOCONFIRM: false,
      REFRESH_TOKEN_REUSE_INTERVAL: 10,
      PASSWORD_MIN_LENGTH: 6,
      MAILER_OTP_EXP: 3600,
      MAIL_FROM: 'no-reply@localhost',
    });
    expect(c.DATA_DIR.endsWith('/data')).toBe(true);
    expect(loadConfig({ PORT: '8080' }).SITE_URL).toBe('http://localhost:8080');
  });

  it('refuses unsafe production settings with a clear message', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SMTP_URL is unset/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://x', SITE_URL: 'http://namaa.example' }),
    ).toThrow(/SITE_URL must be https/);
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        SMTP_URL: 'smtp://x',
        SITE_URL: 'https://namaa.example',
        MAIL_FROM: 'no-reply@namaa.example',
        SERVICE_ROLE_KEY: 'short',
      }),
    ).toThrow(/SERVICE_ROLE_KEY/);
    expect(
      loadConfig({
        NODE_ENV: 'production',
        SMTP_URL: 'smtp://x',
        SITE_URL: 'https://namaa.example',
        MAIL_FROM: 'no-reply@namaa.example',
      }).production,
    ).toBe(true);
    expect(() => loadConfig({ MAILER_AUTOCONFIRM: 'maybe' })).toThrow(/MAILER_AUTOCONFIRM/);
    expect(() => loadConfig({ PASSWORD_MIN_LENGTH: '3' })).toThrow(/PASSWORD_MIN_LENGTH/);
  });
});
