// Issue #26: on /ar/, the second step of a sign-in takes the authenticator's code typed in
// Arabic-Indic digits (٠–٩), as an Arabic phone keyboard types it, and signs in at aal2.
import { createClient } from '@supabase/supabase-js';
import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktop, interactAndHydrate, launchBrowser } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

const ANON_KEY = 'sb_publishable_namaa_development_key';
const PASSWORD = 'correct-horse-7';

let product: Product;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([startProduct({ MAILER_AUTOCONFIRM: 'true' }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const arabic = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
const now = () => Math.floor(Date.now() / 1000);

describe('a code typed in Arabic-Indic digits on /ar/', () => {
  it('the TOTP second step at sign-in accepts ٠–٩ and the visitor is signed in at aal2', async () => {
    const email = `digits-${Date.now()}@example.com`;
    const sb = createClient(product.origin, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    expect((await sb.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    expect(enrolled.error).toBeNull();
    const secret = enrolled.data!.totp.secret;
    const factorId = enrolled.data!.id;
    expect(
      (await sb.auth.mfa.challengeAndVerify({ factorId, code: await generate({ secret, epoch: now() }) }))
        .error,
    ).toBeNull();

    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    const sent: string[] = [];
    p.on('request', (r) => {
      if (r.url().includes('/auth/v1/factors/') && r.url().endsWith('/verify')) sent.push(r.postData() ?? '');
    });
    await p.goto(`${product.origin}/ar/auth`);
    await interactAndHydrate(p);
    await p.locator('input[name=email]').fill(email);
    await p.locator('input[name=password]').fill(PASSWORD);
    await p.locator('button[type=submit]').click();
    await p.getByTestId('mfa-step').waitFor();
    const field = p.locator('input[name=code]');
    expect(await field.evaluate((el: HTMLInputElement) => [el.inputMode, el.autocomplete])).toEqual([
      'numeric',
      'one-time-code',
    ]);

    // The next time step (the enrolment used the current one), typed key by key in ٠–٩.
    const code = await generate({ secret, epoch: now() + 30 });
    await field.pressSequentially(arabic(code));
    expect(await field.inputValue()).toBe(arabic(code));
    await p.locator('button[type=submit]').click();
    await p.waitForURL(`${product.origin}/ar/`);
    await p.getByTestId('nav-email').first().waitFor();
    // The site sent the ASCII digits.
    expect(sent.map((body) => JSON.parse(body).code)).toEqual([code]);
    const stored = await p.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => /^sb-.+-auth-token$/.test(k));
      return key ? localStorage.getItem(key) : null;
    });
    const token = JSON.parse(stored ?? '{}').access_token as string;
    expect(JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).aal).toBe('aal2');
    await context.close();
  });
});
