import { useEffect, useRef, useState } from 'react';
import { localeDirection } from '~/config/locales.ts';
import { type CaptchaApi, captchaRenderOptions, loadCaptchaApi } from '~/features/auth/lib/captcha-loader.ts';
import type { CaptchaSettings } from '~/features/auth/lib/service-settings.ts';
import type { CaptchaState } from '~/features/auth/lib/use-captcha.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';

const ARMING_EVENTS = ['focusin', 'input', 'pointerdown'] as const;

/**
 * The provider's widget (Turnstile or hCaptcha) in the page's language and direction. Loaded lazily
 * (features/auth/components/captcha-slot.tsx) and only when the service asks for CAPTCHA; the
 * provider's script is fetched at the visitor's first focus, input or press in the form, never on
 * page load. Each spent token (`round` changes) resets the widget for a new one.
 */
export function CaptchaWidget({ captcha }: { captcha: CaptchaState & { settings: CaptchaSettings } }) {
  const m = useMessages();
  const locale = useLocale();
  const box = useRef<HTMLDivElement>(null);
  const [armed, setArmed] = useState(false);
  const [unavailable, setUnavailable] = useState(false);
  const widget = useRef<{ api: CaptchaApi; id: string | undefined } | undefined>(undefined);
  // The latest callback without redrawing the widget when the form re-renders.
  const setToken = useRef(captcha.setToken);
  setToken.current = captcha.setToken;
  const { provider, siteKey } = captcha.settings;
  const { armOn, round } = captcha;

  useEffect(() => {
    if (armed) return;
    const target = armOn.current;
    if (!target) return;
    // The interaction that started the page's framework may already be in the form (focus moved
    // to the email field before hydration): that counts.
    if (target.contains(document.activeElement)) {
      setArmed(true);
      return;
    }
    const arm = () => setArmed(true);
    for (const type of ARMING_EVENTS) target.addEventListener(type, arm);
    return () => {
      for (const type of ARMING_EVENTS) target.removeEventListener(type, arm);
    };
  }, [armed, armOn]);

  useEffect(() => {
    const container = box.current;
    if (!armed || !container) return;
    let live = true;
    setUnavailable(false);
    loadCaptchaApi(provider, locale)
      .then((api) => {
        if (!live) return;
        const id = api.render(
          container,
          captchaRenderOptions(provider, siteKey, locale, {
            token: (token) => setToken.current(token),
            expired: () => setToken.current(undefined),
            error: () => setToken.current(undefined),
          }),
        );
        widget.current = { api, id };
      })
      .catch((err) => {
        console.error('The CAPTCHA widget could not load', err);
        if (live) setUnavailable(true);
      });
    return () => {
      live = false;
      const drawn = widget.current;
      widget.current = undefined;
      if (drawn?.id !== undefined) drawn.api.remove(drawn.id);
      setToken.current(undefined);
    };
  }, [armed, provider, siteKey, locale]);

  // A spent token cannot be used again: ask the provider for a new one.
  const drawnRound = useRef(round);
  useEffect(() => {
    if (round === drawnRound.current) return;
    drawnRound.current = round;
    const drawn = widget.current;
    if (drawn) drawn.api.reset(drawn.id);
  }, [round]);

  return (
    <div className="space-y-2" data-testid="captcha">
      <div
        ref={box}
        dir={localeDirection[locale]}
        lang={locale}
        data-testid="captcha-box"
        data-provider={provider}
      />
      <p className="text-sm text-muted" aria-live="polite" data-testid="captcha-status">
        {unavailable ? m.auth.captcha.unavailable : captcha.token ? '' : m.auth.captcha.prompt}
      </p>
    </div>
  );
}
