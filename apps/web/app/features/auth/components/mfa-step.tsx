import { type FormEvent, useEffect, useId, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { FormMessage } from '~/features/auth/components/auth-card.tsx';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { isWrongSecondFactor } from '~/features/auth/lib/mfa.ts';
import { useFocusRequest } from '~/features/auth/lib/use-focus-request.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient } from '~/lib/auth-client.ts';
import { CODE_PATTERN, sixDigitCode } from '~/lib/digits.ts';
import { notifySuccess } from '~/lib/notify.ts';

type Factors = { totp?: string; webauthn?: string };

/**
 * The second step of a sign-in for an account with a verified factor: the TOTP code
 * (`mfa.challengeAndVerify`) or the security key (`mfa.webauthn.authenticate`: challenge, the
 * browser's WebAuthn call, verify). Verifying raises the session to aal2; the auth state then counts
 * the visitor as signed in (the page redirects home) and "Welcome back!" is shown here.
 */
export function MfaStep() {
  const m = useMessages();
  const locale = useLocale();
  const copy = m.account.mfa;
  const ids = { code: useId(), error: useId() };
  const [factors, setFactors] = useState<Factors | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [invalid, setInvalid] = useState(false);
  const focus = useFocusRequest(busy);

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      const auth = await getAuthClient();
      const { data } = await auth.mfa.listFactors();
      if (cancelled) return;
      const verified = (list: ReadonlyArray<{ id: string; status: string }> | undefined) =>
        list?.find((f) => f.status === 'verified')?.id;
      setFactors({ totp: verified(data?.totp), webauthn: verified(data?.webauthn) });
    })();
    return () => {
      cancelled = true;
    };
  }, []);

  const fail = (message: string, field: boolean) => {
    setError(message);
    setInvalid(field);
    // Focus the field to correct it, or the message when there is nothing to type.
    focus(field ? ids.code : ids.error);
  };

  const verified = () => notifySuccess(m.auth.success.signInTitle, m.auth.success.signInText);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Typed on an Arabic keyboard, the code arrives as ٠–٩: sent as ASCII digits.
    const code = sixDigitCode(String(new FormData(event.currentTarget).get('code') ?? ''));
    if (!factors?.totp) return;
    if (!code) return fail(copy.codeFormat, true);
    setBusy(true);
    try {
      const auth = await getAuthClient();
      const { error: verifyError } = await auth.mfa.challengeAndVerify({ factorId: factors.totp, code });
      if (!verifyError) return verified();
      fail(
        isWrongSecondFactor(verifyError)
          ? copy.invalidCode
          : localizedAuthErrorMessage(verifyError, m.auth.errors, locale),
        true,
      );
    } catch (err) {
      console.error('MFA verify failed', err);
      fail(m.auth.errors.fallback, false);
    } finally {
      setBusy(false);
    }
  };

  const useKey = async () => {
    if (!factors?.webauthn) return;
    setBusy(true);
    try {
      const auth = await getAuthClient();
      const { error: keyError } = await auth.mfa.webauthn.authenticate({
        factorId: factors.webauthn,
        webauthn: { rpId: window.location.hostname, rpOrigins: [window.location.origin] },
      });
      if (!keyError) return verified();
      console.error('Security key failed', keyError.message);
      fail(copy.keyFailed, false);
    } catch (err) {
      console.error('Security key failed', err);
      fail(copy.keyFailed, false);
    } finally {
      setBusy(false);
    }
  };

  const cancel = async () => {
    const auth = await getAuthClient();
    await auth.signOut({ scope: 'local' });
  };

  return (
    <div className="mt-8 space-y-5" data-testid="mfa-step">
      <h2 className="text-xl font-bold">{copy.heading}</h2>
      {factors?.totp ? (
        <form method="post" noValidate onSubmit={onSubmit} className="space-y-5">
          <p className="text-muted">{copy.text}</p>
          <div className="space-y-2">
            <Label htmlFor={ids.code}>{copy.codeLabel}</Label>
            <Input
              id={ids.code}
              name="code"
              dir="ltr"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern={CODE_PATTERN}
              maxLength={6}
              required
              disabled={busy}
              aria-invalid={invalid || undefined}
              aria-describedby={invalid ? ids.error : undefined}
            />
          </div>
          <Button type="submit" variant="solid" size="lg" className="w-full" disabled={busy}>
            {busy ? m.auth.pending : copy.submit}
          </Button>
        </form>
      ) : null}
      <FormMessage id={ids.error} tone="error" testId="mfa-error">
        {error}
      </FormMessage>
      {factors?.webauthn ? (
        <div className="space-y-3">
          <p className="text-muted">{copy.keyText}</p>
          <Button
            type="button"
            variant="outline"
            size="lg"
            className="w-full"
            onClick={useKey}
            disabled={busy}
          >
            {copy.keyButton}
          </Button>
        </div>
      ) : null}
      <p className="text-center">
        <Button variant="link" size="sm" onClick={cancel} disabled={busy}>
          {copy.cancel}
        </Button>
      </p>
    </div>
  );
}
