import { type FormEvent, useEffect, useId, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { CodeField } from '~/components/ui/code-field.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { FormMessage } from '~/features/auth/components/auth-card.tsx';
import { useCountdown, withSeconds } from '~/features/auth/lib/countdown.ts';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import {
  errorCode,
  isSmsFloor,
  isWrongSecondFactor,
  phoneEnding,
  smsWaitSeconds,
} from '~/features/auth/lib/mfa.ts';
import { useFocusRequest } from '~/features/auth/lib/use-focus-request.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient, takeRetryAfter } from '~/lib/auth-client.ts';
import { sixDigitCode } from '~/lib/digits.ts';
import { notifySuccess } from '~/lib/notify.ts';
import { looksLikeRecoveryCode, recoveryCodes } from '~/lib/recovery-codes.ts';

type Factors = {
  totp?: string;
  webauthn?: string;
  /** A verified phone factor: its id and number (only its last two digits are shown). */
  phone?: { id: string; phone: string };
  recovery: boolean;
};

/**
 * The second step of a sign-in for an account with a verified factor: the TOTP code
 * (`mfa.challengeAndVerify`), a code texted to the phone factor ("Text me a code": `mfa.challenge`,
 * then `mfa.verify`; the service's resend floor shown as the wait) or the security key
 * (`mfa.webauthn.authenticate`: challenge, the browser's WebAuthn call, verify). Verifying raises the
 * session to aal2; the auth state then counts the visitor as signed in (the page redirects home) and
 * "Welcome back!" is shown here.
 */
export function MfaStep() {
  const m = useMessages();
  const locale = useLocale();
  const copy = m.account.mfa;
  const ids = { code: useId(), smsCode: useId(), error: useId() };
  const [factors, setFactors] = useState<Factors | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  /** The id of the field the last failure is about, if any. */
  const [invalid, setInvalid] = useState<string | undefined>();
  const [recoveryMode, setRecoveryMode] = useState(false);
  /** The live SMS challenge, once a code was texted. */
  const [smsChallenge, setSmsChallenge] = useState<string | undefined>();
  const [smsNote, setSmsNote] = useState('');
  const [smsWait, startSmsWait] = useCountdown();
  const focus = useFocusRequest(busy);

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      const auth = await getAuthClient();
      const { data } = await auth.mfa.listFactors();
      if (cancelled) return;
      const verified = (list: ReadonlyArray<{ id: string; status: string }> | undefined) =>
        list?.find((f) => f.status === 'verified')?.id;
      const phone = (data?.phone ?? []).find((f) => f.status === 'verified') as
        | { id: string; phone?: string }
        | undefined;
      setFactors({
        totp: verified(data?.totp),
        webauthn: verified(data?.webauthn),
        ...(phone ? { phone: { id: phone.id, phone: phone.phone ?? '' } } : {}),
        // auth-js predates recovery codes: they are only in `all`.
        recovery: (data?.all ?? []).some(
          (f) => (f.factor_type as string) === 'recovery_code' && f.status === 'verified',
        ),
      });
    })();
    return () => {
      cancelled = true;
    };
  }, []);

  const fail = (message: string, field: boolean, fieldId = ids.code) => {
    setError(message);
    setInvalid(field ? fieldId : undefined);
    // Focus the field to correct it, or the message when there is nothing to type.
    focus(field ? fieldId : ids.error);
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

  /** "Text me a code" and "Text me a new code": a new challenge, whose code the service texts. */
  const textCode = async () => {
    if (!factors?.phone) return;
    setBusy(true);
    setError('');
    setInvalid(undefined);
    try {
      const auth = await getAuthClient();
      const { data, error: challengeError } = await auth.mfa.challenge({ factorId: factors.phone.id });
      if (!challengeError) {
        setSmsNote(smsChallenge ? copy.smsResent : '');
        setSmsChallenge(data.id);
        focus(ids.smsCode);
        return;
      }
      // The service's resend floor (a code went out moments ago): the wait, in words; the button waits.
      if (isSmsFloor(challengeError)) {
        setSmsNote('');
        return startSmsWait(smsWaitSeconds(challengeError, takeRetryAfter()));
      }
      fail(
        errorCode(challengeError) === 'sms_send_failed'
          ? copy.smsFailed
          : localizedAuthErrorMessage(challengeError, m.auth.errors, locale),
        false,
      );
    } catch (err) {
      console.error('SMS challenge failed', err);
      fail(m.auth.errors.fallback, false);
    } finally {
      setBusy(false);
    }
  };

  const onSmsSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Typed on an Arabic keyboard, the code arrives as ٠–٩: sent as ASCII digits.
    const code = sixDigitCode(String(new FormData(event.currentTarget).get('sms-code') ?? ''));
    if (!factors?.phone || !smsChallenge) return;
    if (!code) return fail(copy.smsCodeFormat, true, ids.smsCode);
    setBusy(true);
    try {
      const auth = await getAuthClient();
      const { error: verifyError } = await auth.mfa.verify({
        factorId: factors.phone.id,
        challengeId: smsChallenge,
        code,
      });
      if (!verifyError) return verified();
      fail(
        isWrongSecondFactor(verifyError)
          ? copy.smsInvalid
          : localizedAuthErrorMessage(verifyError, m.auth.errors, locale),
        true,
        ids.smsCode,
      );
    } catch (err) {
      console.error('SMS code verify failed', err);
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

  const onRecovery = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('recovery') ?? '').trim();
    if (!looksLikeRecoveryCode(code)) return fail(copy.recoveryFormat, true);
    setBusy(true);
    try {
      const auth = await getAuthClient();
      const { error: codeError } = await recoveryCodes(auth).verify(code);
      if (!codeError) return verified();
      if (codeError.code === 'mfa_verification_failed') return fail(copy.recoveryInvalid, true);
      if (codeError.code === 'mfa_recovery_codes_locked') return fail(copy.recoveryLocked, false);
      fail(localizedAuthErrorMessage(codeError, m.auth.errors, locale), false);
    } catch (err) {
      console.error('Recovery code failed', err);
      fail(m.auth.errors.fallback, false);
    } finally {
      setBusy(false);
    }
  };

  const switchMode = (next: boolean) => {
    setRecoveryMode(next);
    setError('');
    setInvalid(undefined);
  };

  const cancel = async () => {
    const auth = await getAuthClient();
    await auth.signOut({ scope: 'local' });
  };

  return (
    <div className="mt-8 space-y-5" data-testid="mfa-step">
      <h2 className="text-xl font-bold">{copy.heading}</h2>
      {recoveryMode ? (
        <form
          method="post"
          noValidate
          onSubmit={onRecovery}
          className="space-y-5"
          data-testid="recovery-step"
        >
          <p className="text-muted">{copy.recoveryText}</p>
          <div className="space-y-2">
            <Label htmlFor={ids.code}>{copy.recoveryLabel}</Label>
            <Input
              id={ids.code}
              name="recovery"
              dir="ltr"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={40}
              required
              disabled={busy}
              aria-invalid={invalid === ids.code || undefined}
              aria-describedby={invalid === ids.code ? ids.error : undefined}
            />
          </div>
          <Button type="submit" variant="solid" size="lg" className="w-full" disabled={busy}>
            {busy ? m.auth.pending : copy.recoverySubmit}
          </Button>
        </form>
      ) : factors?.totp ? (
        <form method="post" noValidate onSubmit={onSubmit} className="space-y-5">
          <p className="text-muted">{copy.text}</p>
          <CodeField
            id={ids.code}
            label={copy.codeLabel}
            disabled={busy}
            invalid={invalid === ids.code}
            describedBy={invalid === ids.code ? ids.error : undefined}
          />
          <Button type="submit" variant="solid" size="lg" className="w-full" disabled={busy}>
            {busy ? m.auth.pending : copy.submit}
          </Button>
        </form>
      ) : null}
      {factors?.phone && !recoveryMode ? (
        <div className="space-y-3" data-testid="sms-step">
          {smsChallenge ? (
            <form method="post" noValidate onSubmit={onSmsSubmit} className="space-y-5">
              <p className="text-muted">{copy.smsSent.replace('{0}', phoneEnding(factors.phone.phone))}</p>
              <CodeField
                id={ids.smsCode}
                name="sms-code"
                label={copy.smsCodeLabel}
                disabled={busy}
                invalid={invalid === ids.smsCode}
                describedBy={invalid === ids.smsCode ? ids.error : undefined}
              />
              <Button type="submit" variant="solid" size="lg" className="w-full" disabled={busy}>
                {busy ? m.auth.pending : copy.smsSubmit}
              </Button>
            </form>
          ) : (
            <p className="text-muted">{copy.smsText.replace('{0}', phoneEnding(factors.phone.phone))}</p>
          )}
          <Button
            type="button"
            variant="outline"
            size="lg"
            className="w-full"
            onClick={textCode}
            disabled={busy || smsWait > 0}
            data-testid="sms-send"
          >
            {smsChallenge ? copy.smsResend : copy.smsButton}
          </Button>
          <p
            role="status"
            aria-live="polite"
            className="text-sm font-medium text-oasis-900"
            data-testid="sms-status"
          >
            {smsWait > 0 ? withSeconds(copy.smsWait, smsWait) : smsNote}
          </p>
        </div>
      ) : null}
      <FormMessage id={ids.error} tone="error" testId="mfa-error">
        {error}
      </FormMessage>
      {factors?.webauthn && !recoveryMode ? (
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
      {factors?.recovery ? (
        <p className="text-center">
          <Button
            variant="link"
            size="sm"
            onClick={() => switchMode(!recoveryMode)}
            disabled={busy}
            data-testid="recovery-toggle"
          >
            {recoveryMode ? (factors.totp ? copy.useApp : copy.useOther) : copy.useRecovery}
          </Button>
        </p>
      ) : null}
      <p className="text-center">
        <Button variant="link" size="sm" onClick={cancel} disabled={busy}>
          {copy.cancel}
        </Button>
      </p>
    </div>
  );
}
