import { useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { paths } from '~/config/paths.ts';
import { isMailRateLimit, useCountdown, withSeconds } from '~/features/auth/lib/countdown.ts';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import type { CaptchaState } from '~/features/auth/lib/use-captcha.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient, takeRetryAfter } from '~/lib/auth-client.ts';
import { notifyError } from '~/lib/notify.ts';

export type ResendConfirmationProps = {
  /** The address to send to, read when the button is pressed; undefined: not valid (focus moves to it). */
  email: () => string | undefined;
  /** The text above the button. */
  prompt: string;
  /** The CAPTCHA of the form above, whose widget issues the token `/resend` needs too. */
  captcha: CaptchaState;
};

/**
 * "Send a new confirmation link" (`resend({ type: 'signup' })`). The service's per-address floor
 * (a mail went to the address moments ago) is not an error: it is shown as a countdown, and the
 * button waits for it.
 */
export function ResendConfirmation({ email, prompt, captcha }: ResendConfirmationProps) {
  const m = useMessages();
  const locale = useLocale();
  const [wait, startWait] = useCountdown();
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);

  const resend = async () => {
    const address = email();
    if (!address) return;
    setSending(true);
    setSent(false);
    const captchaToken = captcha.token;
    try {
      const auth = await getAuthClient();
      const { error } = await auth.resend({
        type: 'signup',
        email: address,
        options: { emailRedirectTo: `${window.location.origin}${paths.home.getHref(locale)}`, captchaToken },
      });
      if (!error) setSent(true);
      else if (isMailRateLimit(error)) startWait(takeRetryAfter());
      else notifyError(m.auth.errors.title, localizedAuthErrorMessage(error, m.auth.errors, locale));
    } catch (error) {
      console.error('Resend failed', error);
      notifyError(m.auth.errors.title, m.auth.errors.fallback);
    } finally {
      if (captchaToken) captcha.spend();
      setSending(false);
    }
  };

  return (
    <div className="mt-6 space-y-3 rounded-2xl border border-sand-200 p-4" data-testid="resend">
      <p className="text-sm text-muted">{prompt}</p>
      <Button
        type="button"
        variant="outline"
        size="sm"
        onClick={resend}
        disabled={sending || wait > 0 || !captcha.ready}
        data-testid="resend-button"
      >
        {sending ? m.auth.pending : m.account.resend.button}
      </Button>
      <p
        role="status"
        aria-live="polite"
        className="text-sm font-medium text-oasis-900"
        data-testid="resend-status"
      >
        {wait > 0 ? withSeconds(m.account.waitSeconds, wait) : sent ? m.account.resend.sent : ''}
      </p>
    </div>
  );
}
