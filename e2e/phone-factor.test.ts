// Issue #26, a phone number as the second factor, in Chromium and both languages: on the account
// page the number is typed as people type it (on /ar/ `05x…` in Arabic-Indic digits, on / with
// `00966`), refused in words when it is not a mobile number, sent to the service as E.164, and
// confirmed with the code texted through the development SMS sender; asking again too soon shows
// the service's wait in words. Then a fresh sign-in with the password takes the second step by SMS
// ("Text me a code") and reaches aal2.
import { createClient } from '@supabase/supabase-js';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/accessibility.ts';
import { desktop, launchBrowser } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

const ANON_KEY = 'sb_publishable_namaa_development_key';
const SERVICE_ROLE_KEY = 'e2e-phone-factor-service-role-key-0123456789';
const PASSWORD = 'Phone-Factor-e2e-53';
// Long enough that the resend right after the first code is inside it on a loaded machine.
const SMS_FLOOR_SECONDS = 20;

let product: Product;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([
    startProduct({
      MAILER_AUTOCONFIRM: 'true',
      SERVICE_ROLE_KEY,
      MFA_PHONE_MAX_FREQUENCY: String(SMS_FLOOR_SECONDS),
    }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

/** An example number as the page writes it: isolated left to right, with no-break spaces. */
const n = (s: string) => `\u2066${s.replaceAll(' ', '\u00a0')}\u2069`;
const arabic = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });
const toast = (p: Page, title: string) => p.locator('[data-sonner-toast]').filter({ hasText: title });

const editions = [
  {
    locale: 'en',
    prefix: '',
    typedInvalid: '011 234 5678', // a Riyadh landline: no texts
    typed: '00966 55 987 6543',
    e164: '+966559876543',
    digits: (code: string) => code,
    invalid: `Enter a mobile number that can receive text messages, such as ${n('050 123 4567')} or ${n('+966 50 123 4567')}.`,
    wait: /^You can ask for a new code in \d+ s\.$/,
    added: 'Phone number added',
  },
  {
    locale: 'ar',
    prefix: '/ar',
    typedInvalid: '٠٥٠ ١٢٣',
    typed: '٠٥٠ ١٢٣ ٤٥٦٧',
    e164: '+966501234567',
    digits: arabic,
    invalid: `أدخل رقم جوال يستقبل الرسائل النصية، مثل ${n('050 123 4567')} أو ${n('+966 50 123 4567')}.`,
    wait: /^يمكنك طلب رمز جديد بعد \d+ ثانية\.$/,
    added: 'أُضيف رقم الجوال',
  },
] as const;

/** The development SMS sender's messages to a number, newest first. */
async function texts(e164: string): Promise<string[]> {
  const res = await fetch(`${product.origin}/auth/v1/_dev/mailbox.json?to=${encodeURIComponent(e164)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Array<{ text: string }>).map((m) => m.text);
}

/** The six-digit code of the newest of `count` texts to a number. */
async function textedCode(e164: string, count: number): Promise<string> {
  await poll(async () => (await texts(e164)).length).toBe(count);
  const code = /\b(\d{6})\b/.exec((await texts(e164))[0] as string)?.[1];
  expect(code).toMatch(/^\d{6}$/);
  return code as string;
}

async function signInWithPassword(p: Page, email: string): Promise<void> {
  await p.locator('input[name=email]').fill(email);
  await p.locator('input[name=password]').fill(PASSWORD);
  await p.locator('button[type=submit]').click();
}

/** Whether these substrings of an element's text are laid out from left to right on the screen. */
async function groupsLeftToRight(element: Locator, groups: string[]): Promise<boolean> {
  return element.evaluate((el, parts) => {
    const node = el.firstChild as Text;
    const text = node.data;
    const lefts = parts.map((part) => {
      const range = document.createRange();
      const start = text.indexOf(part);
      range.setStart(node, start);
      range.setEnd(node, start + part.length);
      return range.getBoundingClientRect().left;
    });
    return lefts.every((left, i) => i === 0 || left > (lefts[i - 1] as number));
  }, groups);
}

async function fieldAttributes(field: Locator) {
  return field.evaluate((el: HTMLInputElement) => ({
    type: el.type,
    inputMode: el.inputMode,
    autocomplete: el.autocomplete,
    dir: el.dir,
  }));
}

describe('a phone number as the second factor (en, ar)', { timeout: 300_000 }, () => {
  it('enrols a number typed in local formats, stores E.164, and signs in again with a texted code to aal2', async () => {
    for (const e of editions) {
      const email = `phone-${e.locale}-${Date.now()}@example.com`;
      const sb = createClient(product.origin, ANON_KEY, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      });
      const signedUp = await sb.auth.signUp({ email, password: PASSWORD });
      expect(signedUp.error).toBeNull();
      const userId = signedUp.data.user?.id as string;

      const context = await browser.newContext(desktop);
      const p = await context.newPage();
      const enrolBodies: string[] = [];
      const parserLoads: string[] = [];
      p.on('request', (r) => {
        if (/\/assets\/phone-number-[\w-]+\.js$/.test(r.url())) parserLoads.push(r.url());
        if (r.method() === 'POST' && r.url().endsWith('/auth/v1/factors'))
          enrolBodies.push(r.postData() ?? '');
      });
      await p.goto(`${product.origin}${e.prefix}/account`);
      await p.waitForURL(/\/auth\?next=/);
      await signInWithPassword(p, email);
      await p.waitForURL(`${product.origin}${e.prefix}/account`);

      // Offered: the service names an SMS provider (dev).
      const section = p.getByTestId('account-mfa');
      const add = section.getByTestId('phone-add');
      const field = add.locator('input[name=phone]');
      await field.waitFor();
      expect(await fieldAttributes(field)).toEqual({
        type: 'tel',
        inputMode: 'tel',
        autocomplete: 'tel',
        dir: 'ltr',
      });
      // The hint's example numbers read left to right, digit groups in order, inside either edition's text.
      const hint = add.locator('p').first();
      expect(await groupsLeftToRight(hint, ['050', '123', '4567'])).toBe(true);
      expect(await groupsLeftToRight(hint, ['+44', '7911', '123456'])).toBe(true);
      // The phone library is no part of the sign-in page or the account page's load: it comes with
      // the first focus of the number field.
      expect(parserLoads).toEqual([]);

      // Not a mobile number: refused on the page, in the page's language, before anything is sent.
      await field.pressSequentially(e.typedInvalid);
      await add.locator('button[type=submit]').click();
      await poll(() => p.getByTestId('account-mfa-error').textContent()).toBe(e.invalid);
      expect(parserLoads).toHaveLength(1);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      await poll(() => p.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('phone');
      expect(enrolBodies).toEqual([]);

      // The number as people type it; the service is sent E.164 and texts a code.
      await field.fill('');
      await field.pressSequentially(e.typed);
      expect(await field.inputValue()).toBe(e.typed);
      await add.locator('button[type=submit]').click();
      const enrolment = section.getByTestId('phone-enrolment');
      await enrolment.waitFor();
      expect(enrolBodies.map((b) => JSON.parse(b).phone)).toEqual([e.e164]);
      expect(await enrolment.getByTestId('phone-status').textContent()).toContain(e.e164);
      const code = await textedCode(e.e164, 1);

      // Asking again at once: the service's resend floor, shown as the wait, the button waiting.
      await enrolment.getByTestId('phone-resend').click();
      await poll(() => enrolment.getByTestId('phone-status').textContent()).toMatch(e.wait);
      expect(await enrolment.getByTestId('phone-resend').isDisabled()).toBe(true);
      expect(await texts(e.e164)).toHaveLength(1);

      expect(await axeViolations(p, '[data-testid="account-mfa"]')).toEqual([]);

      // The code, typed in the edition's digits (٠–٩ on /ar/).
      const codeField = enrolment.locator('input[name=code]');
      await codeField.pressSequentially(e.digits(code));
      await enrolment.locator('button[type=submit]').click();
      await toast(p, e.added).waitFor();
      const listed = section.locator('[data-testid="account-factor"][data-type="phone"]');
      await poll(() => listed.getAttribute('data-status')).toBe('verified');
      expect(await listed.textContent()).toContain(e.e164);
      await poll(() => p.getByTestId('account-aal').getAttribute('data-aal')).toBe('aal2');

      // The service stored the number as E.164 (GoTrue's digits, without the "+").
      const admin = createClient(product.origin, SERVICE_ROLE_KEY, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      });
      const { data: listedFactors, error: adminError } = await admin.auth.admin.mfa.listFactors({ userId });
      expect(adminError).toBeNull();
      const phoneFactors = (listedFactors?.factors ?? []).filter((f) => f.factor_type === 'phone') as Array<{
        status: string;
        phone?: string;
      }>;
      expect(phoneFactors.map((f) => [f.status, f.phone])).toEqual([['verified', e.e164.slice(1)]]);

      // Sign out; sign in again with the password: the second step offers the texted code.
      await p
        .getByTestId('nav-session-bar')
        .getByRole('button', { name: /Sign Out|تسجيل الخروج/ })
        .click();
      await p.waitForURL(/\/auth\?next=/);
      await signInWithPassword(p, email);
      const step = p.getByTestId('sms-step');
      await step.waitFor();
      expect(await step.textContent()).toContain(e.e164.slice(-2));
      const send = step.getByTestId('sms-send');
      await send.click();
      // Within the floor of the enrolment's code the wait is said first; the button comes back after it.
      const smsField = step.locator('input[name=sms-code]');
      await poll(
        async () =>
          (await smsField.count()) > 0 ||
          e.wait.test((await step.getByTestId('sms-status').textContent()) ?? ''),
      ).toBe(true);
      if ((await smsField.count()) === 0) {
        await poll(() => send.isEnabled(), (SMS_FLOOR_SECONDS + 10) * 1000).toBe(true);
        await send.click();
      }
      await smsField.waitFor();
      expect(await fieldAttributes(smsField)).toMatchObject({
        inputMode: 'numeric',
        autocomplete: 'one-time-code',
      });
      const second = await textedCode(e.e164, 2);
      // "Text me a new code" at once: the wait in words, the button waiting, nothing texted.
      await send.click();
      await poll(() => step.getByTestId('sms-status').textContent()).toMatch(e.wait);
      expect(await send.isDisabled()).toBe(true);
      expect(await texts(e.e164)).toHaveLength(2);
      await smsField.pressSequentially(e.digits(second));
      await step.locator('button[type=submit]').click();
      await p.waitForURL(`${product.origin}${e.prefix}/account`);
      await poll(() => p.getByTestId('account-aal').getAttribute('data-aal')).toBe('aal2');
      const token = await p.evaluate(() => {
        const key = Object.keys(localStorage).find((k) => /^sb-.+-auth-token$/.test(k));
        return JSON.parse((key && localStorage.getItem(key)) || '{}').access_token as string;
      });
      const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as {
        aal: string;
        amr: Array<{ method: string }>;
      };
      expect(claims.aal).toBe('aal2');
      expect(claims.amr.map((a) => a.method)).toContain('mfa/phone');
      await context.close();
    }
  });
});
