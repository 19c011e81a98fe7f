// Issue #27, the site's CAPTCHA: what GET /settings must say for the widget to appear, the provider's
// script injected once per page with the page's language, and captcha_failed said in words. The
// loader runs against a real DOM (happy-dom) that does not fetch the script; the provider calling
// back its `onload` is played by the test. The real script path runs in e2e/captcha.test.ts.
import { Window } from 'happy-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { parseServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { getMessages } from '~/i18n/messages.ts';

type Loader = typeof import('~/features/auth/lib/captcha-loader.ts');
let loader: Loader;
let win: Window;

function page(settings: Record<string, boolean> = {}) {
  win = new Window({
    url: 'https://namaa.test/ar/auth',
    // Never dial out from a unit test; a "disabled" load counts as loaded (the `load` event fires).
    settings: { disableJavaScriptFileLoading: true, handleDisabledFileLoadingAsSuccess: true, ...settings },
  });
  return win.document as unknown as Document;
}

const scripts = () => [...win.document.querySelectorAll('script')].map((s) => new URL(s.src));
/** The page's one injected script (fails when there are none or several). */
function onlyScript(): URL {
  const all = scripts();
  expect(all).toHaveLength(1);
  return all[0] as URL;
}
/** What the provider's script does once it has run: defines its global, then calls `onload`. */
function providerLoaded(global: 'turnstile' | 'hcaptcha', api: object, url: URL) {
  const w = win as unknown as Record<string, unknown>;
  w[global] = api;
  (w[url.searchParams.get('onload') ?? ''] as () => void)();
}

beforeEach(async () => {
  // A fresh module per test: the loader remembers its loads for the whole page.
  vi.resetModules();
  loader = await import('~/features/auth/lib/captcha-loader.ts');
});
afterEach(async () => {
  await win?.happyDOM.close();
});

describe('parseServiceSettings: captcha', () => {
  it('takes the provider and the public site key when the service asks for CAPTCHA', () => {
    expect(
      parseServiceSettings({
        external: { email: true },
        captcha: { provider: 'turnstile', site_key: '0x4AAA' },
      }).captcha,
    ).toEqual({ provider: 'turnstile', siteKey: '0x4AAA' });
    expect(
      parseServiceSettings({ captcha: { provider: 'hcaptcha', site_key: ' 10000000-ffff ' } }).captcha,
    ).toEqual({ provider: 'hcaptcha', siteKey: '10000000-ffff' });
  });

  it('shows no widget without the field (CAPTCHA off), or without a provider and key it can use', () => {
    for (const odd of [
      {},
      null,
      { captcha: null },
      { captcha: true },
      { captcha: { provider: 'recaptcha', site_key: 'k' } },
      { captcha: { provider: 'turnstile' } },
      { captcha: { provider: 'turnstile', site_key: '' } },
      { captcha: { provider: 'turnstile', site_key: 42 } },
    ])
      expect(parseServiceSettings(odd).captcha).toBeUndefined();
  });
});

describe('loadCaptchaApi', () => {
  it('injects hCaptcha once, with explicit rendering and hl=ar, and hands its API to every caller', async () => {
    const doc = page();
    const first = loader.loadCaptchaApi('hcaptcha', 'ar', doc);
    const second = loader.loadCaptchaApi('hcaptcha', 'ar', doc);
    expect(second).toBe(first);
    const url = onlyScript();
    expect(url.origin + url.pathname).toBe('https://js.hcaptcha.com/1/api.js');
    expect(url.searchParams.get('hl')).toBe('ar');
    expect(url.searchParams.get('render')).toBe('explicit');
    expect(url.searchParams.get('recaptchacompat')).toBe('off');
    expect(win.document.querySelector('script')?.async).toBe(true);
    const api = { render: vi.fn(), reset: vi.fn(), remove: vi.fn() };
    providerLoaded('hcaptcha', api, url);
    expect(await first).toBe(api);
    expect(await loader.loadCaptchaApi('hcaptcha', 'ar', doc)).toBe(api);
    expect(scripts()).toHaveLength(1);
    // The one-off callback does not linger on the page.
    expect((win as unknown as Record<string, unknown>)[url.searchParams.get('onload') ?? '']).toBeUndefined();
  });

  it('injects Turnstile once; its language goes into each widget (Arabic, flexible width)', async () => {
    const doc = page();
    const load = loader.loadCaptchaApi('turnstile', 'ar', doc);
    loader.loadCaptchaApi('turnstile', 'en', doc);
    const url = onlyScript();
    expect(url.origin + url.pathname).toBe('https://challenges.cloudflare.com/turnstile/v0/api.js');
    expect(url.searchParams.get('render')).toBe('explicit');
    expect(url.searchParams.has('hl')).toBe(false);
    providerLoaded('turnstile', { render: vi.fn(), reset: vi.fn(), remove: vi.fn() }, url);
    await load;
    const events = { token: vi.fn(), expired: vi.fn(), error: vi.fn() };
    expect(loader.captchaRenderOptions('turnstile', '0x4AAA', 'ar', events)).toMatchObject({
      sitekey: '0x4AAA',
      language: 'ar',
      size: 'flexible',
      theme: 'light',
      callback: events.token,
      'expired-callback': events.expired,
      'error-callback': events.error,
    });
    expect(loader.captchaRenderOptions('hcaptcha', 'k', 'ar', events)).not.toHaveProperty('language');
  });

  it('a script that fails to load is forgotten: the next interaction injects it again', async () => {
    const doc = page({ handleDisabledFileLoadingAsSuccess: false });
    await expect(loader.loadCaptchaApi('turnstile', 'en', doc)).rejects.toThrow(/could not be loaded/);
    expect(scripts()).toEqual([]);
    win.happyDOM.settings.handleDisabledFileLoadingAsSuccess = true;
    const again = loader.loadCaptchaApi('turnstile', 'en', doc);
    const url = onlyScript();
    const api = { render: vi.fn(), reset: vi.fn(), remove: vi.fn() };
    providerLoaded('turnstile', api, url);
    expect(await again).toBe(api);
  });
});

describe('captcha_failed in words', () => {
  it('replaces the service’s provider codes with the catalog text, in both languages', () => {
    const error = {
      name: 'AuthApiError',
      status: 400,
      code: 'captcha_failed',
      message: 'captcha protection: request disallowed (invalid-input-response)',
    };
    for (const locale of ['en', 'ar'] as const) {
      const m = getMessages(locale).auth.errors;
      expect(localizedAuthErrorMessage(error, m, locale)).toBe(m.captchaFailed);
    }
    expect(getMessages('ar').auth.errors.captchaFailed).toMatch(/التحقق/);
  });
});
