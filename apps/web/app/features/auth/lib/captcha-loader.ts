/**
 * The CAPTCHA provider's script (Cloudflare Turnstile or hCaptcha), injected into the page once and
 * only when a form asks for it: the prerendered pages carry no trace of it, and a visitor who never
 * touches a form never downloads it (Lighthouse and the first-load budget stay as they are).
 * Both providers have the same small explicit-render API, so the widget speaks to either one.
 */
import type { Locale } from '~/config/locales.ts';
import type { CaptchaProvider } from '~/features/auth/lib/service-settings.ts';

export type CaptchaRenderOptions = {
  sitekey: string;
  callback: (token: string) => void;
  'expired-callback': () => void;
  'error-callback': () => void;
  theme: 'light';
  /** Turnstile takes the language per widget; hCaptcha only in its script URL (`hl`). */
  language?: string;
  size?: 'flexible';
};

/** What the widget uses of `window.turnstile` / `window.hcaptcha` (the same shape for both). */
export type CaptchaApi = {
  render(container: HTMLElement, options: CaptchaRenderOptions): string | undefined;
  reset(widgetId?: string): void;
  remove(widgetId: string): void;
};

const scripts: Record<CaptchaProvider, { src: string; global: 'turnstile' | 'hcaptcha' }> = {
  turnstile: { src: 'https://challenges.cloudflare.com/turnstile/v0/api.js', global: 'turnstile' },
  hcaptcha: { src: 'https://js.hcaptcha.com/1/api.js', global: 'hcaptcha' },
};

/**
 * The script's URL. `render=explicit`: the widget is drawn where and when the form says, not over
 * every `.cf-turnstile`/`.h-captcha` element at load; `onload` names the global the provider calls
 * once its API is ready (both providers' documented way to wait for it).
 */
export function captchaScriptUrl(provider: CaptchaProvider, locale: Locale, onload: string): string {
  const url = new URL(scripts[provider].src);
  url.searchParams.set('render', 'explicit');
  url.searchParams.set('onload', onload);
  if (provider === 'hcaptcha') {
    url.searchParams.set('hl', locale);
    // No `window.grecaptcha` alias: nothing here speaks reCAPTCHA's API.
    url.searchParams.set('recaptchacompat', 'off');
  }
  return url.href;
}

/** The render options in the page's language (the container's `dir` handles right to left). */
export function captchaRenderOptions(
  provider: CaptchaProvider,
  siteKey: string,
  locale: Locale,
  events: { token: (token: string) => void; expired: () => void; error: () => void },
): CaptchaRenderOptions {
  const options: CaptchaRenderOptions = {
    sitekey: siteKey,
    callback: events.token,
    'expired-callback': events.expired,
    'error-callback': events.error,
    theme: 'light',
  };
  // Turnstile's widget stretches to the form's width; hCaptcha's has one fixed size.
  return provider === 'turnstile' ? { ...options, language: locale, size: 'flexible' } : options;
}

type Global = Record<string, unknown>;
const loads = new Map<string, Promise<CaptchaApi>>();
let callbacks = 0;

/**
 * Injects the provider's script (once per URL: a second form, a remount or a second call reuse the
 * same load) and resolves with its API. A failed load is forgotten, so the next interaction retries.
 */
export function loadCaptchaApi(
  provider: CaptchaProvider,
  locale: Locale,
  doc: Document = document,
): Promise<CaptchaApi> {
  const win = doc.defaultView as unknown as Global;
  const name = scripts[provider].global;
  const key = captchaScriptUrl(provider, locale, '');
  const known = loads.get(key);
  if (known) return known;
  const load = new Promise<CaptchaApi>((resolve, reject) => {
    const onload = `__namaaCaptchaLoaded${++callbacks}`;
    win[onload] = () => {
      delete win[onload];
      const api = win[name] as CaptchaApi | undefined;
      if (api) resolve(api);
      else reject(new Error(`${provider}: the script loaded without window.${name}`));
    };
    const script = doc.createElement('script');
    script.src = captchaScriptUrl(provider, locale, onload);
    script.async = true;
    script.dataset.captcha = provider;
    script.addEventListener('error', () => {
      delete win[onload];
      script.remove();
      reject(new Error(`${provider}: the script could not be loaded`));
    });
    doc.head.append(script);
  });
  loads.set(key, load);
  load.catch(() => loads.delete(key));
  return load;
}
