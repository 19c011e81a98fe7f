// The account page's wording choices (issue #14): where the reauthentication code went (an email, or
// a text to an account with a phone and no email) and what an email change did (both inboxes, the
// new one only, or already applied), decided from the user and GET /settings as the page reads them.
import { describe, expect, it } from 'vitest';
import { emailChangeOutcome, pendingAsksBoth } from '~/features/account/lib/email-change.ts';
import { reauthenticationChannel } from '~/features/account/lib/reauthentication.ts';
import { parseServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { ar } from '~/i18n/ar.ts';
import { en } from '~/i18n/en.ts';

describe('reauthenticationChannel', () => {
  it('emails an account with an address (GoTrue: the email first, also when a phone is set)', () => {
    expect(reauthenticationChannel({ email: 'a@example.com', phone: '' })).toBe('email');
    expect(reauthenticationChannel({ email: 'a@example.com', phone: '966500000001' })).toBe('email');
  });
  it('texts an account with a phone and no email (the service answers "" or nothing for it)', () => {
    expect(reauthenticationChannel({ email: '', phone: '966500000001' })).toBe('sms');
    expect(reauthenticationChannel({ phone: '966500000001' })).toBe('sms');
  });
  it('says "We texted you a code" or "We emailed you a code", in both languages', () => {
    expect(en.accountPage.reauthCode.sms.text).toMatch(/^We texted you/);
    expect(en.accountPage.reauthCode.email.text).toMatch(/^We emailed you/);
    expect(ar.accountPage.reauthCode.sms.text).toContain('رسالة نصية');
    expect(ar.accountPage.reauthCode.email.text).toContain('بريدك');
    for (const catalog of [en, ar])
      expect(catalog.accountPage.reauthCode.sms).not.toEqual(catalog.accountPage.reauthCode.email);
  });
});

describe('emailChangeOutcome', () => {
  const requested = 'new@example.com';
  it('both inboxes under secure change, when the account has a current address', () => {
    expect(emailChangeOutcome(requested, 'old@example.com', { email: 'old@example.com' }, true)).toBe('both');
    // Settings not read (yet, or a failure): GoTrue's default, secure change on.
    expect(emailChangeOutcome(requested, 'old@example.com', { email: 'old@example.com' }, undefined)).toBe(
      'both',
    );
  });
  it('the new inbox only: MAILER_AUTOCONFIRM or secure change off, or no current address', () => {
    expect(emailChangeOutcome(requested, 'old@example.com', { email: 'old@example.com' }, false)).toBe('new');
    expect(emailChangeOutcome(requested, '', { email: '' }, true)).toBe('new');
    expect(emailChangeOutcome(requested, undefined, { email: '' }, undefined)).toBe('new');
  });
  it('already changed when the answer carries the new address (any case)', () => {
    expect(emailChangeOutcome(requested, '', { email: 'NEW@example.com' }, false)).toBe('changed');
    expect(emailChangeOutcome(requested, 'old@example.com', { email: requested }, true)).toBe('changed');
  });
  it('a pending change asks both addresses only when both confirm and there is a current one', () => {
    expect(pendingAsksBoth({ email: 'old@example.com' }, true)).toBe(true);
    expect(pendingAsksBoth({ email: 'old@example.com' }, false)).toBe(false);
    expect(pendingAsksBoth({ email: '' }, true)).toBe(false);
  });
});

describe('GET /settings: does an email change ask both addresses', () => {
  it('yes by default and with secure change on; no under autoconfirm or with it off', () => {
    expect(parseServiceSettings({}).emailChangeAsksBoth).toBe(true);
    expect(parseServiceSettings({ mailer_autoconfirm: false }).emailChangeAsksBoth).toBe(true);
    expect(
      parseServiceSettings({ mailer_autoconfirm: false, mailer_secure_email_change_enabled: true })
        .emailChangeAsksBoth,
    ).toBe(true);
    expect(parseServiceSettings({ mailer_autoconfirm: true }).emailChangeAsksBoth).toBe(false);
    expect(parseServiceSettings({ mailer_secure_email_change_enabled: false }).emailChangeAsksBoth).toBe(
      false,
    );
  });
});
