/**
 * What the auth service has switched on, from `GET /auth/v1/settings`: the third-party providers
 * (`external`, in the order the site shows them), passkeys (`passkeys_enabled`), whether it can
 * text codes (`sms_provider` non-empty, GoTrue's field: phone factors need it), CAPTCHA (our
 * `captcha: { provider, site_key }`, present only when SECURITY_CAPTCHA_ENABLED) and whether an
 * email change is confirmed by both addresses (`mailer_autoconfirm`, and our
 * `mailer_secure_email_change_enabled`: absent from GoTrue's answer, where its default, on, holds).
 * Read once per page after hydration (the prerendered page has neither kind of button, nor the
 * CAPTCHA widget), so a visitor only ever sees buttons that work: none when the service offers
 * none, or when the answer cannot be read.
 */
import { useEffect, useState } from 'react';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { fetchRuntimeConfig, resolveSupabaseUrl } from '~/lib/runtime-config.ts';

export const SOCIAL_PROVIDER_ORDER = ['google', 'apple', 'azure', 'github', 'x', 'oidc'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDER_ORDER)[number];

export const CAPTCHA_PROVIDERS = ['turnstile', 'hcaptcha'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];
export type CaptchaSettings = { provider: CaptchaProvider; siteKey: string };

export type ServiceSettings = {
  providers: SocialProvider[];
  oidcName: string;
  passkeys: boolean;
  /** Undefined: the service asks for no CAPTCHA token (or names no provider and key the widget can use). */
  captcha: CaptchaSettings | undefined;
  /** The service can send SMS: a phone number may be added as a second factor. */
  sms: boolean;
  /** An email change needs the current address's link too (secure change, and not autoconfirm). */
  emailChangeAsksBoth: boolean;
};

function parseCaptcha(value: unknown): CaptchaSettings | undefined {
  const c = (value ?? {}) as { provider?: unknown; site_key?: unknown };
  const provider = CAPTCHA_PROVIDERS.find((p) => p === c.provider);
  const siteKey = typeof c.site_key === 'string' ? c.site_key.trim() : '';
  return provider && siteKey ? { provider, siteKey } : undefined;
}

/** Parses the settings answer (anything unexpected: nothing switched on). */
export function parseServiceSettings(settings: unknown): ServiceSettings {
  const s = (settings ?? {}) as {
    external?: Record<string, unknown>;
    oidc_provider_name?: unknown;
    passkeys_enabled?: unknown;
    captcha?: unknown;
    sms_provider?: unknown;
    mailer_autoconfirm?: unknown;
    mailer_secure_email_change_enabled?: unknown;
  };
  const external = s.external ?? {};
  return {
    providers: SOCIAL_PROVIDER_ORDER.filter((p) => external[p] === true),
    oidcName: typeof s.oidc_provider_name === 'string' ? s.oidc_provider_name : 'OpenID Connect',
    passkeys: s.passkeys_enabled === true,
    captcha: parseCaptcha(s.captcha),
    sms: typeof s.sms_provider === 'string' && s.sms_provider.trim() !== '',
    // Under autoconfirm the service (as GoTrue) applies the change on the new address's link alone.
    emailChangeAsksBoth: s.mailer_secure_email_change_enabled !== false && s.mailer_autoconfirm !== true,
  };
}

let pending: Promise<ServiceSettings> | undefined;

/** One request per page, shared by every button that asks; a failure lets the next ask retry. */
export function fetchServiceSettings(): Promise<ServiceSettings> {
  pending ??= (async () => {
    const config = await fetchRuntimeConfig();
    const url = resolveSupabaseUrl(config, window.location.origin);
    const res = await fetch(`${url}/auth/v1/settings`, { headers: { apikey: config.anonKey } });
    if (!res.ok) throw new Error(`settings answered ${res.status}`);
    return parseServiceSettings(await res.json());
  })();
  pending.catch(() => {
    pending = undefined;
  });
  return pending;
}

/** The service's settings once hydrated and read; undefined until then (and if they cannot be read). */
export function useServiceSettings(): ServiceSettings | undefined {
  const hydrated = useHydrated();
  const [settings, setSettings] = useState<ServiceSettings | undefined>();
  useEffect(() => {
    if (!hydrated) return;
    let live = true;
    fetchServiceSettings()
      .then((s) => live && setSettings(s))
      .catch((err) => console.error('Could not read the auth service settings', err));
    return () => {
      live = false;
    };
  }, [hydrated]);
  return settings;
}
