import { type FormEvent, useId, useRef, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { paths } from '~/config/paths.ts';
import { AuthCard, FormMessage } from '~/features/auth/components/auth-card.tsx';
import { CaptchaSlot } from '~/features/auth/components/captcha-slot.tsx';
import { isMailRateLimit, useCountdown, withSeconds } from '~/features/auth/lib/countdown.ts';
import { credentialLimits, fieldError } from '~/features/auth/lib/credentials-schema.ts';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { useCaptcha } from '~/features/auth/lib/use-captcha.ts';
import { useFocusRequest } from '~/features/auth/lib/use-focus-request.ts';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient, takeRetryAfter } from '~/lib/auth-client.ts';
import { notifyError } from '~/lib/notify.ts';

/**
 * `/auth/forgot`: asks for a password-recovery link (`resetPasswordForEmail`, PKCE: the link signs
 * in only this browser) that lands on the "Set a new password" page. The answer is the same whether
 * or not an account exists (the service answers `{}` alike); the mail floor is a countdown.
 */
export function ForgotPasswordForm() {
  const m = useMessages();
  const locale = useLocale();
  const copy = m.account.forgot;
  const hydrated = useHydrated();
  const ids = { email: useId(), error: useId(), status: useId() };
  const [submitting, setSubmitting] = useState(false);
  const focus = useFocusRequest(submitting);
  const [error, setError] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [sent, setSent] = useState(false);
  const [wait, startWait] = useCountdown();
  const formRef = useRef<HTMLFormElement>(null);
  const captcha = useCaptcha(formRef);

  const fail = (message: string, field: boolean) => {
    setError(message);
    setInvalid(field);
    notifyError(m.auth.errors.title, message);
    focus(field ? ids.email : ids.error);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    const problem = fieldError('email', email, m.auth.validation);
    if (problem) return fail(problem, true);
    setError('');
    setInvalid(false);
    setSent(false);
    setSubmitting(true);
    const captchaToken = captcha.token;
    try {
      const auth = await getAuthClient();
      const { error: recoverError } = await auth.resetPasswordForEmail(email, {
        redirectTo: `${window.location.origin}${paths.resetPassword.getHref(locale)}`,
        captchaToken,
      });
      if (!recoverError) setSent(true);
      else if (isMailRateLimit(recoverError)) startWait(takeRetryAfter());
      else fail(localizedAuthErrorMessage(recoverError, m.auth.errors, locale), false);
    } catch (err) {
      console.error('Recovery request failed', err);
      fail(m.auth.errors.fallback, false);
    } finally {
      if (captchaToken) captcha.spend();
      setSubmitting(false);
    }
  };

  return (
    <AuthCard page="forgot" heading={copy.heading} text={copy.text}>
      <form ref={formRef} method="post" className="mt-8 space-y-5" noValidate onSubmit={onSubmit}>
        <div className="space-y-2">
          <Label htmlFor={ids.email}>{m.auth.emailLabel}</Label>
          <Input
            id={ids.email}
            name="email"
            type="email"
            dir="ltr"
            inputMode="email"
            autoComplete="email"
            placeholder={m.auth.emailPlaceholder}
            required
            maxLength={credentialLimits.emailMax}
            disabled={submitting}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? ids.error : undefined}
          />
        </div>
        <CaptchaSlot captcha={captcha} />
        <FormMessage id={ids.error} tone="error" testId="auth-error">
          {error}
        </FormMessage>
        <FormMessage id={ids.status} tone="notice" testId="forgot-status">
          {wait > 0 ? withSeconds(m.account.waitSeconds, wait) : sent ? copy.sent : ''}
        </FormMessage>
        <Button
          type="submit"
          variant="solid"
          size="lg"
          className="w-full"
          disabled={submitting || wait > 0 || !hydrated || !captcha.ready}
        >
          {submitting ? m.auth.pending : copy.submit}
        </Button>
      </form>
      <p className="mt-6 text-center">
        <a
          href={paths.auth.getHref(locale)}
          className="rounded-sm text-sm font-semibold text-oasis-700 underline-offset-4 hover:underline"
        >
          {m.account.backToSignIn}
        </a>
      </p>
    </AuthCard>
  );
}
