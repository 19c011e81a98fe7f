// The gateway settings at start-up: a sender ID the regulator would not register (not alphanumeric,
// over 11 characters) and a chosen provider without its credentials refuse the start, naming the
// setting; the process entry prints that one line and exits 1.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../../../src/config.ts';

const base = { NODE_ENV: 'test', DATA_DIR: 'memory://' };
const refusal = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env });
  } catch (err) {
    return (err as Error).message;
  }
  return 'started';
};

describe('SMS and WhatsApp settings', () => {
  it.each(['Namaa-Auth', 'NamaaAuthKSA', 'نماء', 'Namaa Auth', ''.padEnd(12, 'A')])(
    'SMS_SENDER_ID=%j is refused, naming the setting',
    (senderId) => {
      expect(refusal({ SMS_PROVIDER: 'taqnyat', SMS_TAQNYAT_TOKEN: 't', SMS_SENDER_ID: senderId })).toMatch(
        /SMS_SENDER_ID must be letters and digits only, at most 11 characters/,
      );
    },
  );

  it('an 11-character alphanumeric sender starts', () => {
    const config = loadConfig({
      ...base,
      SMS_PROVIDER: 'unifonic',
      SMS_UNIFONIC_APP_SID: 'a',
      SMS_SENDER_ID: 'NamaaAuth11',
    });
    expect(config.delivery.senderId).toBe('NamaaAuth11');
    expect(config.delivery.unifonic).toEqual({ appSid: 'a', baseUrl: 'https://el.cloud.unifonic.com' });
  });

  it.each([
    [
      { SMS_PROVIDER: 'unifonic', SMS_SENDER_ID: 'Namaa' },
      'SMS_PROVIDER=unifonic needs SMS_UNIFONIC_APP_SID',
    ],
    [{ SMS_PROVIDER: 'taqnyat', SMS_TAQNYAT_TOKEN: 't' }, 'SMS_PROVIDER=taqnyat needs SMS_SENDER_ID'],
    [
      { SMS_PROVIDER: 'msegat', SMS_SENDER_ID: 'Namaa', SMS_MSEGAT_USERNAME: 'u' },
      'SMS_PROVIDER=msegat needs SMS_MSEGAT_API_KEY',
    ],
    [
      { SMS_PROVIDER: 'twilio', SMS_TWILIO_ACCOUNT_SID: 'AC1' },
      'SMS_PROVIDER=twilio needs SMS_TWILIO_AUTH_TOKEN',
    ],
    [
      { WHATSAPP_PROVIDER: 'meta', WHATSAPP_META_TOKEN: 't' },
      'WHATSAPP_PROVIDER=meta needs WHATSAPP_META_PHONE_NUMBER_ID',
    ],
    [
      { WHATSAPP_PROVIDER: 'taqnyat', WHATSAPP_META_TEMPLATE: 'x' },
      'WHATSAPP_PROVIDER=taqnyat needs WHATSAPP_TAQNYAT_TOKEN',
    ],
    [{ OTP_CHANNEL_FALLBACK: 'whatsapp,pigeon' }, 'OTP_CHANNEL_FALLBACK: "pigeon" is not a channel'],
    [{ OTP_CHANNEL_FALLBACK: 'sms,whatsapp' }, 'OTP_CHANNEL_FALLBACK must start with whatsapp'],
  ])('%j is refused: %s', (env, message) => {
    expect(refusal(env as Record<string, string>)).toContain(message);
  });

  it("Twilio takes GoTrue's setting names unchanged; Taqnyat WhatsApp borrows the SMS token", () => {
    const config = loadConfig({
      ...base,
      SMS_PROVIDER: 'twilio',
      SMS_TWILIO_ACCOUNT_SID: 'AC1',
      SMS_TWILIO_AUTH_TOKEN: 'tok',
      SMS_TWILIO_MESSAGE_SERVICE_SID: 'MG1',
      SMS_TAQNYAT_TOKEN: 'tq',
      WHATSAPP_PROVIDER: 'taqnyat',
      WHATSAPP_META_TEMPLATE: 'namaa_code',
    });
    expect(config.delivery.twilio).toMatchObject({
      accountSid: 'AC1',
      authToken: 'tok',
      messageServiceSid: 'MG1',
    });
    expect(config.delivery.whatsapp).toEqual({
      provider: 'taqnyat',
      baseUrl: 'https://api.taqnyat.sa',
      token: 'tq',
      template: 'namaa_code',
    });
    expect(config.delivery.fallback).toEqual(['whatsapp', 'sms']);
  });

  it('the process entry prints the refused sender ID and exits 1', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'apps/auth/src/main.ts')], {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        PORT: '0',
        DATA_DIR: 'memory://',
        LOG_LEVEL: 'silent',
        SMS_PROVIDER: 'taqnyat',
        SMS_TAQNYAT_TOKEN: 'secret-token-never-printed',
        SMS_SENDER_ID: 'Namaa-Saudi-Auth',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(exitCode, stderr).toBe(1);
    expect(stderr).toContain('SMS_SENDER_ID must be letters and digits only, at most 11 characters');
    expect(stderr).not.toContain('secret-token-never-printed');
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
