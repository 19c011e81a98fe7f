import { type FormEvent, useEffect, useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { Button, buttonVariants } from '~/components/ui/button.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { paths } from '~/config/paths.ts';
import { AuthCard, FormMessage } from '~/features/auth/components/auth-card.tsx';
import { credentialLimits, fieldError } from '~/features/auth/lib/credentials-schema.ts';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { useFocusRequest } from '~/features/auth/lib/use-focus-request.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient, takeLandingOutcome } from '~/lib/auth-client.ts';
import { notifyError, notifySuccess } from '~/lib/notify.ts';

type Stage = 'checking' | 'ready' | 'no-session';

/**
 * `/auth/reset`: the recovery link's landing. The link's code is exchanged (PKCE: only in the
 * browser that asked for it) for a recovery session, then the new password is saved with
 * `updateUser({ password })` and the visitor is signed in at `/`. Without a recovery session from
 * this landing (expired, used, opened elsewhere or typed by hand) the page says so and offers a
 * fresh link. Its script starts at once only when the URL carries an email link; opened without one,
 * the prerendered page already gives that answer (routes/reset-password.tsx, app.css).
 */
export function ResetPasswordForm() {
  const m = useMessages();
  const locale = useLocale();
  const navigate = useNavigate();
  const copy = m.account.reset;
  const ids = { password: useId(), hint: useId(), error: useId() };
  const [stage, setStage] = useState<Stage>('checking');
  const [submitting, setSubmitting] = useState(false);
  const focus = useFocusRequest(submitting);
  const [error, setError] = useState('');
  const [invalid, setInvalid] = useState(false);

  useEffect(() => {
    let cancelled = false;
    takeLandingOutcome()
      .catch(() => undefined)
      .then((outcome) => {
        if (cancelled) return;
        setStage(outcome?.kind === 'signed-in' && outcome.recovery ? 'ready' : 'no-session');
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const fail = (message: string, field: boolean) => {
    setError(message);
    setInvalid(field);
    notifyError(m.auth.errors.title, message);
    focus(field ? ids.password : ids.error);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password') ?? '');
    const problem = fieldError('password', password, m.auth.validation);
    if (problem) return fail(problem, true);
    setError('');
    setInvalid(false);
    setSubmitting(true);
    try {
      const auth = await getAuthClient();
      const { error: updateError } = await auth.updateUser({ password });
      if (updateError) {
        // weak_password / same_password: the service's policy message (localized on Arabic pages).
        fail(localizedAuthErrorMessage(updateError, m.auth.errors, locale), true);
        return;
      }
      notifySuccess(copy.successTitle, copy.successText);
      navigate(paths.home.getHref(locale), { replace: true });
    } catch (err) {
      console.error('Password update failed', err);
      fail(m.auth.errors.fallback, false);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard page="reset" heading={copy.heading} text={copy.text}>
      {stage === 'checking' ? (
        <p className="mt-8 text-muted" role="status" data-testid="reset-checking" data-show="link">
          {copy.checking}
        </p>
      ) : null}
      {stage !== 'ready' ? (
        // While checking, shown only by CSS for a visit without a link (see app.css): the page then
        // answers before (and without) its script.
        <div
          className="mt-8 space-y-5"
          data-testid="reset-no-session"
          data-show={stage === 'checking' ? 'no-link' : undefined}
        >
          <FormMessage tone="error">{`${copy.noSession} ${copy.noSessionNext}`}</FormMessage>
          <a
            href={paths.forgotPassword.getHref(locale)}
            className={buttonVariants({ variant: 'solid', size: 'lg', className: 'w-full' })}
          >
            {copy.requestNew}
          </a>
        </div>
      ) : null}
      {stage === 'ready' ? (
        <form method="post" className="mt-8 space-y-5" noValidate onSubmit={onSubmit}>
          <div className="space-y-2">
            <Label htmlFor={ids.password}>{copy.passwordLabel}</Label>
            <Input
              id={ids.password}
              name="password"
              type="password"
              dir="ltr"
              autoComplete="new-password"
              required
              minLength={credentialLimits.passwordMin}
              maxLength={credentialLimits.passwordMax}
              disabled={submitting}
              aria-invalid={invalid || undefined}
              aria-describedby={[invalid ? ids.error : '', ids.hint].filter(Boolean).join(' ')}
            />
            <p id={ids.hint} className="text-sm text-muted">
              {m.auth.signup.passwordHint}
            </p>
          </div>
          <FormMessage id={ids.error} tone="error" testId="auth-error">
            {error}
          </FormMessage>
          <Button type="submit" variant="solid" size="lg" className="w-full" disabled={submitting}>
            {submitting ? m.auth.pending : copy.submit}
          </Button>
        </form>
      ) : null}
    </AuthCard>
  );
}
