// WebAuthn factor in real Chromium: a CDP virtual authenticator, the official supabase-js client
// (its UMD bundle added to a page served by the product), enrolment (create) and verification (request).
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';
import { addVirtualAuthenticator } from './support/virtual-authenticator.ts';

const umd = createRequire(import.meta.url).resolve('@supabase/supabase-js/dist/umd/supabase.js');
const ANON_KEY = 'sb_publishable_namaa_development_key';

let product: Product;
let browser: Browser;
beforeAll(async () => {
  product = await startProduct({ MAILER_AUTOCONFIRM: 'true' }, undefined, { hostname: 'localhost' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

describe('WebAuthn MFA factor', () => {
  it('enrols and verifies with a virtual authenticator, reaching aal2 with amr mfa/webauthn (create, then request)', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    await page.goto(`${product.origin}/`, { waitUntil: 'domcontentloaded' });
    await page.addScriptTag({ path: umd });
    const email = `webauthn-${Date.now()}@example.com`;
    const result = await page.evaluate(
      async ({ anonKey, email }) => {
        const decode = (jwt: string) =>
          JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
        // biome-ignore lint/suspicious/noExplicitAny: the UMD global
        const sb = (window as any).supabase.createClient(location.origin, anonKey, {
          auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        });
        const up = await sb.auth.signUp({ email, password: 'Namaa-webauthn-Pass-4410' });
        if (up.error) return { step: 'signup', error: up.error.message };
        // The ceremony step by step with the client's mfa API (enroll → challenge → the browser's
        // WebAuthn call → verify, which serializes the credential as the client does).
        const rp = { rpId: location.hostname, rpOrigins: [location.origin] };
        const en = await sb.auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'Virtual key' });
        if (en.error) return { step: 'enroll', error: en.error.message };
        const ch = await sb.auth.mfa.challenge({ factorId: en.data.id, webauthn: rp });
        if (ch.error) return { step: 'challenge', error: ch.error.message };
        const created = await navigator.credentials.create({
          publicKey: ch.data.webauthn.credential_options.publicKey,
        });
        const reg = await sb.auth.mfa.verify({
          factorId: en.data.id,
          challengeId: ch.data.id,
          webauthn: { type: 'create', ...rp, credential_response: created },
        });
        if (reg.error) return { step: 'register', error: reg.error.message };
        const afterRegister = decode(reg.data.access_token);
        const factors = await sb.auth.mfa.listFactors();
        const factor = factors.data.webauthn[0];
        // A fresh aal1 sign-in, then the verified factor's "request" ceremony.
        await sb.auth.signInWithPassword({ email, password: 'Namaa-webauthn-Pass-4410' });
        const before = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
        const ch2 = await sb.auth.mfa.challenge({ factorId: factor.id, webauthn: rp });
        if (ch2.error) return { step: 'challenge2', error: ch2.error.message };
        const asserted = await navigator.credentials.get({
          publicKey: ch2.data.webauthn.credential_options.publicKey,
        });
        const auth = await sb.auth.mfa.verify({
          factorId: factor.id,
          challengeId: ch2.data.id,
          webauthn: { type: 'request', ...rp, credential_response: asserted },
        });
        if (auth.error) return { step: 'authenticate', error: auth.error.message };
        const after = decode(auth.data.access_token);
        return {
          registerAal: afterRegister.aal,
          registerAmr: afterRegister.amr.map((a: { method: string }) => a.method),
          factorStatus: factor.status,
          before: before.data,
          afterAal: after.aal,
          afterAmr: after.amr.map((a: { method: string }) => a.method),
        };
      },
      { anonKey: ANON_KEY, email },
    );
    expect(result).toEqual({
      registerAal: 'aal2',
      registerAmr: ['mfa/webauthn', 'password'],
      factorStatus: 'verified',
      before: expect.objectContaining({ currentLevel: 'aal1', nextLevel: 'aal2' }),
      afterAal: 'aal2',
      afterAmr: ['mfa/webauthn', 'password'],
    });
    await context.close();
  });
});
