import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { Button } from '~/components/ui/button.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { type AuthMode, paths, safeNextPath } from '~/config/paths.ts';
import { AuthCard, FormMessage } from '~/features/auth/components/auth-card.tsx';
import { CaptchaSlot } from '~/features/auth/components/captcha-slot.tsx';
import { MfaStep } from '~/features/auth/components/mfa-step.tsx';
import { PasskeySignIn } from '~/features/auth/components/passkey-sign-in.tsx';
import { ResendConfirmation } from '~/features/auth/components/resend-confirmation.tsx';
import { SocialButtons } from '~/features/auth/components/social-buttons.tsx';
import {
  type CredentialField,
  credentialLimits,
  fieldError,
  validateCredentials,
} from '~/features/auth/lib/credentials-schema.ts';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { type AuthNotice, noticeFromState } from '~/features/auth/lib/notice.ts';
import { useCaptcha } from '~/features/auth/lib/use-captcha.ts';
import { useFocusRequest } from '~/features/auth/lib/use-focus-request.ts';
import { useAuthSession } from '~/hooks/use-auth-session.ts';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { needsSecondFactor } from '~/lib/assurance.ts';
import { getAuthClient } from '~/lib/auth-client.ts';
import { otherMode } from '~/lib/auth-mode.ts';
import { notifyError, notifySuccess } from '~/lib/notify.ts';

export type AuthFormProps = { initialMode: AuthMode };

/** Who may be sent a new confirmation link from this page, and why (sign-up done, or refused). */
type ResendOffer =
  | { email: string; reason: 'signed-up' | 'unconfirmed' }
  | { email?: undefined; reason: 'link' };

/**
 * The /auth screen (spec §2, §4, §5, §8): sign in or sign up with email and password; signing in
 * may also use a passkey (PasskeySignIn).
 */
export function AuthForm({ initialMode }: AuthFormProps) {
  const m = useMessages();
  const locale = useLocale();
  const navigate = useNavigate();
  const location = useLocation();
  const session = useAuthSession({ eager: true });
  const [mode, setMode] = useState<AuthMode>(initialMode);
  const [submitting, setSubmitting] = useState(false);
  const focus = useFocusRequest(submitting);
  const [errorMessage, setErrorMessage] = useState('');
  const [invalidField, setInvalidField] = useState<CredentialField | undefined>();
  const [notice, setNotice] = useState<AuthNotice | undefined>();
  const [resendOffer, setResendOffer] = useState<ResendOffer | undefined>();
  const ids = {
    email: useId(),
    password: useId(),
    hint: useId(),
    consent: useId(),
    error: useId(),
    notice: useId(),
  };
  const formRef = useRef<HTMLFormElement>(null);
  // Sign-up, password sign-in and the confirmation resend below share the form's widget.
  const captcha = useCaptcha(formRef);
  const copy = m.auth[mode];
  // Until React has hydrated, the form must not submit natively (that would put the password in
  // the URL); a disabled default button also blocks implicit submission with Enter.
  const hydrated = useHydrated();

  // The URL's ?mode= can change through client navigation (e.g. Sign Up link while on /auth).
  useEffect(() => setMode(initialMode), [initialMode]);

  // An email link that could not sign in here sends the visitor to this page with a notice (home
  // route's landing handling): say what happened, and offer a new confirmation link.
  useEffect(() => {
    const fromState = noticeFromState(location.state);
    setNotice(fromState);
    if (fromState && fromState !== 'confirmed') setResendOffer({ reason: 'link' });
  }, [location.state]);

  // Spec §4: a session on load, or one that appears later (sign-in, confirmation link in another
  // tab), sends the visitor home, or back to the page of the site that sent them here to sign in
  // (`?next=/account`; any other value goes home: no redirect off the site). A session still owing
  // its second factor is not one yet.
  useEffect(() => {
    if (session.status !== 'signed-in') return;
    const next = new URLSearchParams(window.location.search).get('next');
    navigate(safeNextPath(next, locale), { replace: true });
  }, [session.status, navigate, locale]);

  const fieldOf = (field: CredentialField) =>
    formRef.current?.elements.namedItem(field) as HTMLInputElement | null | undefined;

  /** A failed submit: the message, the toast, and focus where the visitor fixes it. */
  const fail = (message: string, field?: CredentialField) => {
    setErrorMessage(message);
    setInvalidField(field);
    notifyError(m.auth.errors.title, message);
    focus(field === 'email' ? ids.email : field === 'password' ? ids.password : ids.error);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const result = validateCredentials(
      { email: String(form.get('email') ?? '').trim(), password: String(form.get('password') ?? '') },
      m.auth.validation,
    );
    if (!result.ok) {
      fail(result.message, result.field);
      return;
    }
    setErrorMessage('');
    setInvalidField(undefined);
    setNotice(undefined);
    setResendOffer(undefined);
    setSubmitting(true);
    const captchaToken = captcha.token;
    try {
      const auth = await getAuthClient();
      if (mode === 'signup') {
        const { error } = await auth.signUp({
          ...result.data,
          // The form says what is collected and links the notice: signing up accepts it. The service
          // records its PRIVACY_NOTICE_VERSION and the time with the account (docs/pdpl.md).
          options: {
            emailRedirectTo: `${window.location.origin}${paths.home.getHref(locale)}`,
            data: { privacy_notice_accepted: true },
            captchaToken,
          },
        });
        if (error) fail(localizedAuthErrorMessage(error, m.auth.errors, locale));
        else {
          notifySuccess(m.auth.success.signUpTitle, m.auth.success.signUpText);
          setResendOffer({ email: result.data.email, reason: 'signed-up' });
        }
      } else {
        const { data, error } = await auth.signInWithPassword({ ...result.data, options: { captchaToken } });
        if (error) {
          fail(localizedAuthErrorMessage(error, m.auth.errors, locale));
          if (error.code === 'email_not_confirmed')
            setResendOffer({ email: result.data.email, reason: 'unconfirmed' });
        } else if (!data.session || !needsSecondFactor(data.session)) {
          notifySuccess(m.auth.success.signInTitle, m.auth.success.signInText);
        }
        // Otherwise the session owes its second factor: the MFA step takes over (session state).
      }
    } catch (error) {
      // auth-js returns the service's errors; what is thrown (the page's configuration or the client
      // could not load) carries no words of the service, so it gets the generic text (spec §8).
      console.error('Auth request failed', error);
      fail(m.auth.errors.fallback);
    } finally {
      if (captchaToken) captcha.spend();
      setSubmitting(false);
    }
  };

  const switchMode = () => {
    const next = otherMode(mode);
    setMode(next);
    setErrorMessage('');
    setInvalidField(undefined);
    setResendOffer(undefined);
    // Keep the URL shareable and in sync with the visible mode.
    navigate(paths.auth.getHref(locale, next), { replace: true, preventScrollReset: true });
  };

  /** The address to resend to: the one just used, or the form's (validated; focus on it if not). */
  const resendAddress = (): string | undefined => {
    if (resendOffer?.email) return resendOffer.email;
    const value = (fieldOf('email')?.value ?? '').trim();
    const problem = fieldError('email', value, m.auth.validation);
    if (problem) fail(problem, 'email');
    return problem ? undefined : value;
  };

  const describedBy = (field: CredentialField, ...more: (string | undefined)[]) =>
    [invalidField === field ? ids.error : undefined, ...more].filter(Boolean).join(' ') || undefined;

  const noticeText =
    notice === 'confirmed'
      ? m.account.notices.confirmed
      : notice === 'expired'
        ? `${m.account.notices.linkExpired} ${m.account.notices.linkNext}`
        : notice === 'invalid'
          ? `${m.account.notices.linkInvalid} ${m.account.notices.linkNext}`
          : notice === 'provider'
            ? m.account.notices.providerFailed
            : notice === 'provider-email'
              ? m.account.notices.providerEmailTaken
              : '';

  if (session.status === 'needs-mfa')
    return (
      <AuthCard page="auth" heading={m.auth.signin.heading} text={m.auth.signin.text}>
        <MfaStep />
      </AuthCard>
    );

  return (
    <AuthCard page="auth" heading={copy.heading} text={copy.text}>
      <div className="mt-6 empty:hidden">
        {noticeText ? (
          <FormMessage
            id={ids.notice}
            tone={notice === 'confirmed' ? 'notice' : 'error'}
            testId="auth-notice"
          >
            {noticeText}
          </FormMessage>
        ) : null}
      </div>
      {/* method="post": even if a native submission ever happened before hydration, the password
          would never be put in a URL (the submit button is also disabled until hydration). */}
      <form
        ref={formRef}
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
            aria-invalid={invalidField === 'email' || undefined}
            aria-describedby={describedBy('email')}
          />
        </div>
        <div className="space-y-2">
          <div className="flex items-baseline justify-between gap-4">
            <Label htmlFor={ids.password}>{m.auth.passwordLabel}</Label>
            {mode === 'signin' ? (
              <a
                href={paths.forgotPassword.getHref(locale)}
                className="rounded-sm text-sm font-medium text-oasis-700 underline-offset-4 hover:underline"
                data-testid="forgot-link"
              >
                {m.account.forgotLink}
              </a>
            ) : null}
          </div>
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
            aria-invalid={invalidField === 'password' || undefined}
            aria-describedby={describedBy('password', mode === 'signup' ? ids.hint : undefined)}
          />
          {mode === 'signup' ? (
            <p id={ids.hint} className="text-sm text-muted">
              {m.auth.signup.passwordHint}
            </p>
          ) : null}
        </div>
        {mode === 'signup' ? (
          <p id={ids.consent} className="text-sm text-muted" data-testid="signup-consent">
            {m.auth.signup.consentBefore}{' '}
            <a
              href={paths.privacy.getHref(locale)}
              className="font-medium text-oasis-700 underline underline-offset-4"
            >
              {m.auth.signup.consentLink}
            </a>
            .
          </p>
        ) : null}
        <CaptchaSlot captcha={captcha} />
        <FormMessage id={ids.error} tone="error" testId="auth-error">
          {errorMessage}
        </FormMessage>
        <Button
          type="submit"
          variant="solid"
          size="lg"
          className="w-full"
          disabled={submitting || !hydrated || !captcha.ready}
        >
          {submitting ? m.auth.pending : copy.submit}
        </Button>
      </form>
      {mode === 'signin' ? (
        <PasskeySignIn
          disabled={submitting || !hydrated}
          onBusy={setSubmitting}
          onError={(message) => fail(message)}
        />
      ) : null}
      {hydrated ? <SocialButtons disabled={submitting} /> : null}
      {resendOffer ? (
        <ResendConfirmation
          email={resendAddress}
          captcha={captcha}
          prompt={
            resendOffer.reason === 'unconfirmed' ? m.account.resend.unconfirmed : m.account.resend.prompt
          }
        />
      ) : null}
      <p className="mt-6 text-center">
        <Button variant="link" size="sm" onClick={switchMode} disabled={submitting} data-testid="auth-toggle">
          {copy.toggle}
        </Button>
      </p>
    </AuthCard>
  );
}
