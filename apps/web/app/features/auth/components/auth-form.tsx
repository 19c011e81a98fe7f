import { type FormEvent, useEffect, useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { BrandMark } from '~/components/layout/brand-mark.tsx';
import { LanguageSwitcher } from '~/components/layout/language-switcher.tsx';
import { Button, buttonVariants } from '~/components/ui/button.tsx';
import { ArrowLeft } from '~/components/ui/icons.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { type AuthMode, paths } from '~/config/paths.ts';
import { credentialLimits, validateCredentials } from '~/features/auth/lib/credentials-schema.ts';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { useAuthSession } from '~/hooks/use-auth-session.ts';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient } from '~/lib/auth-client.ts';
import { otherMode } from '~/lib/auth-mode.ts';
import { notifyError, notifySuccess } from '~/lib/notify.ts';
import { cn } from '~/lib/utils.ts';

export type AuthFormProps = { initialMode: AuthMode };

/** The /auth screen (spec §2, §4, §5, §8): sign in or sign up with email and password. */
export function AuthForm({ initialMode }: AuthFormProps) {
  const m = useMessages();
  const locale = useLocale();
  const navigate = useNavigate();
  const session = useAuthSession({ eager: true });
  const [mode, setMode] = useState<AuthMode>(initialMode);
  const [submitting, setSubmitting] = useState(false);
  const [errorMessage, setErrorMessage] = useState('');
  const ids = { email: useId(), password: useId(), hint: useId(), error: useId(), heading: useId() };
  const copy = m.auth[mode];
  // Until React has hydrated, the form must not submit natively (that would put the password in
  // the URL); a disabled default button also blocks implicit submission with Enter.
  const hydrated = useHydrated();

  // The URL's ?mode= can change through client navigation (e.g. Sign Up link while on /auth).
  useEffect(() => setMode(initialMode), [initialMode]);

  // Spec §4: a session on load, or one that appears later (sign-in, confirmation link in another
  // tab), sends the visitor home.
  useEffect(() => {
    if (session.status === 'signed-in') navigate(paths.home.getHref(locale), { replace: true });
  }, [session.status, navigate, locale]);

  const fail = (message: string) => {
    setErrorMessage(message);
    notifyError(m.auth.errors.title, message);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const result = validateCredentials(
      { email: String(form.get('email') ?? '').trim(), password: String(form.get('password') ?? '') },
      m.auth.validation,
    );
    if (!result.ok) {
      fail(result.message);
      return;
    }
    setErrorMessage('');
    setSubmitting(true);
    try {
      const auth = await getAuthClient();
      if (mode === 'signup') {
        const { error } = await auth.signUp({
          ...result.data,
          options: { emailRedirectTo: `${window.location.origin}${paths.home.getHref(locale)}` },
        });
        if (error) fail(localizedAuthErrorMessage(error, m.auth.errors, locale));
        else notifySuccess(m.auth.success.signUpTitle, m.auth.success.signUpText);
      } else {
        const { error } = await auth.signInWithPassword(result.data);
        if (error) fail(localizedAuthErrorMessage(error, m.auth.errors, locale));
        else notifySuccess(m.auth.success.signInTitle, m.auth.success.signInText);
      }
    } catch (error) {
      // auth-js returns the service's errors; what is thrown (the page's configuration or the client
      // could not load) carries no words of the service, so it gets the generic text (spec §8).
      console.error('Auth request failed', error);
      fail(m.auth.errors.fallback);
    } finally {
      setSubmitting(false);
    }
  };

  const switchMode = () => {
    const next = otherMode(mode);
    setMode(next);
    setErrorMessage('');
    // Keep the URL shareable and in sync with the visible mode.
    navigate(paths.auth.getHref(locale, next), { replace: true, preventScrollReset: true });
  };

  return (
    <main id="main" className="flex min-h-dvh flex-col bg-oasis-950 px-4 py-8 sm:px-6">
      <div className="mx-auto flex w-full max-w-md flex-1 flex-col">
        <div className="flex items-center justify-between gap-4">
          <a
            href={paths.home.getHref(locale)}
            className={cn(buttonVariants({ variant: 'ghost', size: 'sm' }), 'text-oasis-50')}
          >
            <ArrowLeft aria-hidden="true" className="rtl:-scale-x-100" />
            {m.auth.backToHome}
          </a>
          <LanguageSwitcher page="auth" className="min-h-10 px-3 text-sm text-oasis-50 hover:bg-white/10" />
        </div>
        <section
          aria-labelledby={ids.heading}
          className="mt-8 rounded-3xl bg-white p-7 shadow-2xl shadow-black/30 sm:p-9"
          data-testid="auth-card"
        >
          <div className="flex items-center gap-2.5 text-lg font-bold text-oasis-900">
            <BrandMark />
            {m.meta.siteName}
          </div>
          <h1 id={ids.heading} className="mt-6 text-3xl font-extrabold tracking-tight">
            {copy.heading}
          </h1>
          <p className="mt-2 text-muted">{copy.text}</p>
          {/* method="post": even if a native submission ever happened before hydration, the password
              would never be put in a URL (the submit button is also disabled until hydration). */}
          <form
            method="post"
            className="mt-8 space-y-5"
            noValidate
            onSubmit={onSubmit}
            aria-describedby={ids.error}
          >
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
              />
            </div>
            <div className="space-y-2">
              <Label htmlFor={ids.password}>{m.auth.passwordLabel}</Label>
              <Input
                id={ids.password}
                name="password"
                type="password"
                dir="ltr"
                autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
                placeholder={m.auth.passwordPlaceholder}
                required
                minLength={credentialLimits.passwordMin}
                maxLength={credentialLimits.passwordMax}
                disabled={submitting}
                aria-describedby={mode === 'signup' ? ids.hint : undefined}
              />
              {mode === 'signup' ? (
                <p id={ids.hint} className="text-sm text-muted">
                  {m.auth.signup.passwordHint}
                </p>
              ) : null}
            </div>
            <p
              id={ids.error}
              role="alert"
              aria-live="assertive"
              data-testid="auth-error"
              className={cn(
                'rounded-xl text-sm font-medium text-danger',
                errorMessage && 'border border-danger/30 bg-danger-soft px-4 py-3',
              )}
            >
              {errorMessage}
            </p>
            <Button
              type="submit"
              variant="solid"
              size="lg"
              className="w-full"
              disabled={submitting || !hydrated}
            >
              {submitting ? m.auth.pending : copy.submit}
            </Button>
          </form>
          <p className="mt-6 text-center">
            <Button
              variant="link"
              size="sm"
              onClick={switchMode}
              disabled={submitting}
              data-testid="auth-toggle"
            >
              {copy.toggle}
            </Button>
          </p>
        </section>
      </div>
    </main>
  );
}
