// The README's settings tables are rendered from the one declaration in config.ts; this fails when
// a setting was added, removed, renamed, re-described or given another default without
// `npm run docs:settings`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envSchema, loadConfig, repoRoot } from '../src/config.ts';
import { renderSettingsDocs, SETTINGS_END, SETTINGS_START, settingRows } from '../src/settings-docs.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('settings documentation', () => {
  it('the README holds the tables rendered from config.ts (run `npm run docs:settings` if not)', () => {
    const block = readme.slice(
      readme.indexOf(SETTINGS_START),
      readme.indexOf(SETTINGS_END) + SETTINGS_END.length,
    );
    expect(block).toBe(renderSettingsDocs());
  });

  it('lists every setting once, with the default the service really uses', () => {
    const rows = settingRows();
    expect(rows.map((r) => r.name)).toEqual(Object.keys(envSchema.shape));
    const config = loadConfig({});
    const row = (name: string) => rows.find((r) => r.name === name)?.shownDefault;
    expect(row('RATE_LIMIT_SIGNIN_PER_IP')).toBe(`\`${config.rateLimits.signinPerIp}\``);
    expect(row('RATE_LIMIT_OTP_PER_IP')).toBe(`\`${config.rateLimits.otpPerIp}\``);
    expect(row('RATE_LIMIT_VERIFY_PER_IP')).toBe(`\`${config.rateLimits.verifyPerIp}\``);
    expect(row('PASSWORD_MIN_LENGTH')).toBe(`\`${config.PASSWORD_MIN_LENGTH}\``);
  });

  it('refuses a setting declared without a description, or a made-up default for a fixed one', () => {
    expect(() => settingRows(z.object({ NEW_SETTING: z.string().default('x') }))).toThrow(
      /NEW_SETTING has no description/,
    );
    const lying = z.object({ X: z.string().default('a').meta({ description: 'x', unsetMeans: 'b' }) });
    expect(() => settingRows(lying)).toThrow(/X: unsetMeans/);
  });
});
