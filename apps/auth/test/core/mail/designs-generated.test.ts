// The committed render of the built-in mail designs (core/mail/designs.generated.json) is what a
// fresh render gives, and it is what a default start-up uses; any other link lifetime is rendered
// with its own minutes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { PRERENDERED_FILE, type PrerenderedDesigns } from '../../../src/core/mail/default-designs.ts';
import { renderDesigns } from '../../../src/core/mail/render-designs.ts';
import { createMailTemplates, linkMinutes, type MailValues } from '../../../src/core/mail/templates.ts';

const committed = JSON.parse(readFileSync(PRERENDERED_FILE, 'utf8')) as PrerenderedDesigns;
const values: MailValues = {
  ConfirmationURL: 'https://example.test/verify?token=t',
  Token: '123456',
  TokenHash: 't',
  SiteURL: 'https://example.test',
  RedirectTo: 'https://example.test',
  Email: 'someone@example.test',
  NewEmail: '',
  Data: {},
};

describe('the pre-rendered mail designs', () => {
  it('are up to date with the designs and their copy (run `npm run mail:designs` if not)', async () => {
    expect(committed.minutes).toBe(linkMinutes(loadConfig({})));
    expect(committed.designs).toEqual(Object.fromEntries(await renderDesigns(committed.minutes)));
  }, 60_000);

  it('are what the default settings send', async () => {
    const templates = await createMailTemplates(loadConfig({}));
    const mail = templates.render('recovery', 'en', values);
    const source = committed.designs['recovery:en'];
    expect(source?.html).toContain('{{ .Token }}');
    expect(mail.html).toContain('123456');
    expect(mail.text).toContain('60 minutes');
  });

  it('another link lifetime is rendered with its own minutes, in both languages', async () => {
    const templates = await createMailTemplates(loadConfig({ MAILER_OTP_EXP: '1800' }));
    expect(templates.render('recovery', 'en', values).text).toContain('30 minutes');
    expect(templates.render('recovery', 'en', values).text).not.toContain('60 minutes');
    expect(templates.render('recovery', 'ar', values).text).toContain('30 دقيقة');
  }, 60_000);
});
