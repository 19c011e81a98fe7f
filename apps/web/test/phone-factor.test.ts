// The phone factor's words on the site (issue #26): what the service's refusals become on the
// account page and at the sign-in's second step, and how long the resend floor makes one wait.
import { describe, expect, it } from 'vitest';
import { e164Of, phoneFactorProblem, phoneHint, phoneInvalid } from '~/features/account/lib/phone-factor.ts';
import { isSmsFloor, phoneEnding, smsWaitSeconds } from '~/features/auth/lib/mfa.ts';
import { ar } from '~/i18n/ar.ts';
import { en } from '~/i18n/en.ts';

const other = () => 'the service said so';

describe('phoneFactorProblem', () => {
  it('says in words that the service cannot send SMS (422 mfa_phone_enroll_not_enabled), in both languages', () => {
    const error = {
      status: 422,
      code: 'mfa_phone_enroll_not_enabled',
      message: 'MFA enroll is disabled for Phone',
    };
    expect(phoneFactorProblem(error, en.accountPage.mfa.phone, other)).toBe(
      'This service cannot send text messages, so a phone number cannot be added.',
    );
    expect(phoneFactorProblem(error, ar.accountPage.mfa.phone, other)).toBe(
      ar.accountPage.mfa.phone.disabled,
    );
    expect(ar.accountPage.mfa.phone.disabled).not.toMatch(/[A-Za-z]/);
  });

  it('names a number that is already a factor, a refused number and a failed SMS', () => {
    const copy = en.accountPage.mfa.phone;
    expect(phoneFactorProblem({ code: 'mfa_verified_factor_exists' }, copy, other)).toBe(copy.exists);
    expect(phoneFactorProblem({ code: 'mfa_factor_name_conflict' }, copy, other)).toBe(copy.exists);
    expect(phoneFactorProblem({ code: 'validation_failed' }, copy, other)).toBe(phoneInvalid(copy));
    expect(phoneFactorProblem({ code: 'sms_send_failed' }, copy, other)).toBe(copy.sendFailed);
    expect(phoneFactorProblem({ code: 'over_request_rate_limit' }, copy, other)).toBe('the service said so');
    expect(phoneFactorProblem(new Error('network'), copy, other)).toBe('the service said so');
  });
});

describe('the example numbers', () => {
  it('are filled in isolated left to right, so an Arabic sentence keeps their digit groups in order', () => {
    const n = (s: string) => `\u2066${s.replaceAll(' ', '\u00a0')}\u2069`;
    expect(phoneInvalid(en.accountPage.mfa.phone)).toBe(
      `Enter a mobile number that can receive text messages, such as ${n('050 123 4567')} or ${n('+966 50 123 4567')}.`,
    );
    expect(phoneHint(ar.accountPage.mfa.phone)).toBe(
      `رقم سعودي كما تتصل به (${n('050 123 4567')})، أو أي رقم جوال مع رمز بلده (${n('+44 7911 123456')}).`,
    );
    for (const copy of [en.accountPage.mfa.phone, ar.accountPage.mfa.phone])
      for (const text of [phoneHint(copy), phoneInvalid(copy)]) expect(text).not.toContain('{');
  });
});

describe('the SMS resend floor', () => {
  const floor = {
    status: 429,
    code: 'over_sms_send_rate_limit',
    message: 'For security purposes, you can only request this after 42 seconds.',
  };

  it('is recognised by its code only', () => {
    expect(isSmsFloor(floor)).toBe(true);
    expect(isSmsFloor({ status: 429, code: 'over_request_rate_limit' })).toBe(false);
    expect(isSmsFloor(undefined)).toBe(false);
  });

  it('waits what Retry-After says, else what the message says, else GoTrue’s 60 s', () => {
    expect(smsWaitSeconds(floor, 17)).toBe(17);
    expect(smsWaitSeconds(floor, undefined)).toBe(42);
    expect(smsWaitSeconds({ ...floor, message: '…after 1 second.' }, undefined)).toBe(1);
    expect(smsWaitSeconds({ ...floor, message: 'SMS rate limit exceeded' }, undefined)).toBe(60);
    expect(smsWaitSeconds({}, 0)).toBe(60);
  });

  it('is said in words with the seconds in both languages', () => {
    expect(en.account.mfa.smsWait.replace('{0}', '42')).toBe('You can ask for a new code in 42 s.');
    expect(ar.account.mfa.smsWait.replace('{0}', '42')).toBe('يمكنك طلب رمز جديد بعد 42 ثانية.');
  });
});

describe('numbers shown', () => {
  it('the sign-in step shows only the last two digits', () => {
    expect(phoneEnding('966501234567')).toBe('67');
    expect(phoneEnding('+966 50 123 4567')).toBe('67');
    expect(phoneEnding(undefined)).toBe('');
  });

  it('the account page shows a factor’s number as E.164, as the service lists it with or without "+"', () => {
    expect(e164Of('966501234567')).toBe('+966501234567');
    expect(e164Of('+966501234567')).toBe('+966501234567');
    expect(e164Of('')).toBe('');
  });
});
