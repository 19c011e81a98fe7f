import { type RefObject, useCallback, useState } from 'react';
import { type CaptchaSettings, useServiceSettings } from '~/features/auth/lib/service-settings.ts';

export type CaptchaState = {
  /** The provider and public key when the service asks for a token; undefined otherwise. */
  settings: CaptchaSettings | undefined;
  /** The element whose first focus, input or press loads the provider's script. */
  armOn: RefObject<HTMLElement | null>;
  /** The widget's current token (single use). */
  token: string | undefined;
  /** A request may go: the service asks for no token, or one is ready. */
  ready: boolean;
  /** Counts spent tokens: the widget draws a new challenge each time it changes. */
  round: number;
  /** The widget hands its token over here (undefined: it expired or failed). */
  setToken: (token: string | undefined) => void;
  /** After a request that carried the token, answered either way: the provider accepts it once only. */
  spend: () => void;
};

/**
 * CAPTCHA for one form: whether the service asks for it (GET /settings, after hydration), the
 * token to pass as supabase-js's `captchaToken`, and the reset after each use. While the settings
 * are unknown a request may go: the service then answers `captcha_failed`, shown in words.
 */
export function useCaptcha(armOn: RefObject<HTMLElement | null>): CaptchaState {
  const settings = useServiceSettings()?.captcha;
  const [token, setToken] = useState<string | undefined>();
  const [round, setRound] = useState(0);
  const spend = useCallback(() => {
    setToken(undefined);
    setRound((r) => r + 1);
  }, []);
  return {
    settings,
    armOn,
    token: settings ? token : undefined,
    ready: !settings || token !== undefined,
    round,
    setToken,
    spend,
  };
}
