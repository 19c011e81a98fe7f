import type { Factor, User } from '@supabase/auth-js';
import { type FormEvent, useId, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { CodeField } from '~/components/ui/code-field.tsx';
import { Label } from '~/components/ui/label.tsx';
import { PhoneInput } from '~/components/ui/phone-input.tsx';
import { fill } from '~/features/account/lib/password-reasons.ts';
import {
  e164Of,
  loadPhoneParser,
  ltr,
  phoneFactorProblem,
  phoneHint,
  phoneInvalid,
} from '~/features/account/lib/phone-factor.ts';
import type { useAction } from '~/features/account/lib/use-action.ts';
import { useCountdown, withSeconds } from '~/features/auth/lib/countdown.ts';
import { isSmsFloor, isWrongSecondFactor, smsWaitSeconds } from '~/features/auth/lib/mfa.ts';
import { useFocusRequest } from '~/features/auth/lib/use-focus-request.ts';
import { useMessages } from '~/i18n/locale-context.tsx';
import { type AuthClient, takeRetryAfter } from '~/lib/auth-client.ts';
import { sixDigits } from './section.tsx';

/** A phone factor waiting for the texted code: the factor, its number (E.164) and the live challenge. */
export type PhoneEnrolment = { id: string; phone: string; challengeId: string };

/**
 * "Add a phone number (SMS)": the number, typed as people type it (`05x xxx xxxx`, `+966…`,
 * `00966…`, Arabic-Indic digits), made E.164 on the page (lib/phone-number.ts, loaded here only),
 * then `mfa.enroll({ factorType: 'phone' })`, `mfa.challenge` (the service texts a code) and
 * `mfa.verify` with the code. "Text me a new code" asks for another challenge; the service's resend
 * floor is shown as the wait, in words. The parent offers this only when the service can send SMS.
 */
export function PhoneFactorAdd({
  auth,
  user,
  action,
  enrolment,
  onEnrolment,
  onConfirmed,
  reload,
}: {
  auth: AuthClient;
  user: User;
  action: ReturnType<typeof useAction>;
  enrolment: PhoneEnrolment | undefined;
  onEnrolment: (enrolment: PhoneEnrolment | undefined) => void;
  onConfirmed: () => void;
  reload: () => Promise<void>;
}) {
  const m = useMessages();
  const copy = m.accountPage.mfa.phone;
  const ids = { phone: useId(), hint: useId(), code: useId() };
  const [numberInvalid, setNumberInvalid] = useState(false);
  const [codeInvalid, setCodeInvalid] = useState(false);
  const [note, setNote] = useState('');
  const [wait, startWait] = useCountdown();
  const busy = action.pending !== undefined;
  const focus = useFocusRequest(busy);

  const onAdd = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const typed = String(new FormData(form).get('phone') ?? '');
    void action.run('phone', async () => {
      const { toE164 } = await loadPhoneParser();
      const phone = toE164(typed);
      if (!phone) {
        setNumberInvalid(true);
        focus(ids.phone);
        return action.fail(phoneInvalid(copy));
      }
      setNumberInvalid(false);
      // An earlier enrolment of this number left unconfirmed (the page was closed before the code)
      // would take the name this one gets: it is replaced.
      const stale = (user.factors ?? []).filter(
        (f: Factor & { phone?: string }) =>
          f.factor_type === 'phone' && f.status === 'unverified' && e164Of(f.phone) === phone,
      );
      for (const f of stale) await auth.mfa.unenroll({ factorId: f.id });
      const enrolled = await auth.mfa.enroll({ factorType: 'phone', phone, friendlyName: phone });
      if (enrolled.error) {
        if (enrolled.error.code === 'validation_failed') {
          setNumberInvalid(true);
          focus(ids.phone);
        }
        return action.fail(phoneFactorProblem(enrolled.error, copy, action.errorText));
      }
      const factorId = enrolled.data.id;
      const challenge = await auth.mfa.challenge({ factorId });
      if (challenge.error) {
        // Nothing was texted: the factor would only wait on the account until the service sweeps it.
        await auth.mfa.unenroll({ factorId });
        await reload();
        return action.fail(phoneFactorProblem(challenge.error, copy, action.errorText));
      }
      form.reset();
      setCodeInvalid(false);
      setNote(fill(copy.sent, ltr(phone)));
      onEnrolment({ id: factorId, phone, challengeId: challenge.data.id });
      await reload();
      focus(ids.code);
    });
  };

  const onConfirm = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!enrolment) return;
    const form = event.currentTarget;
    // Typed on an Arabic keyboard, the code arrives as ٠–٩: sent as ASCII digits.
    const code = sixDigits(form);
    if (!code) {
      setCodeInvalid(true);
      focus(ids.code);
      return action.fail(copy.codeFormat);
    }
    void action.run('phone-confirm', async () => {
      const { error } = await auth.mfa.verify({
        factorId: enrolment.id,
        challengeId: enrolment.challengeId,
        code,
      });
      form.reset();
      if (error) {
        setCodeInvalid(true);
        focus(ids.code);
        return action.fail(isWrongSecondFactor(error) ? copy.codeInvalid : action.errorText(error));
      }
      setCodeInvalid(false);
      setNote('');
      onEnrolment(undefined);
      action.succeed(copy.addedTitle, copy.added);
      await reload();
      onConfirmed();
    });
  };

  const resend = () =>
    void action.run('phone-resend', async () => {
      if (!enrolment) return;
      setNote('');
      const challenge = await auth.mfa.challenge({ factorId: enrolment.id });
      if (challenge.error) {
        // The service's resend floor: not a failure, the wait is shown and the button waits for it.
        if (isSmsFloor(challenge.error)) return startWait(smsWaitSeconds(challenge.error, takeRetryAfter()));
        return action.fail(phoneFactorProblem(challenge.error, copy, action.errorText));
      }
      onEnrolment({ ...enrolment, challengeId: challenge.data.id });
      setNote(fill(copy.resent, ltr(enrolment.phone)));
    });

  const cancel = () =>
    void action.run('phone-cancel', async () => {
      const pending = enrolment;
      onEnrolment(undefined);
      setNote('');
      // The unconfirmed factor would otherwise wait on the account until the service sweeps it.
      if (pending) await auth.mfa.unenroll({ factorId: pending.id });
      await reload();
    });

  if (enrolment)
    return (
      <div className="space-y-5" data-testid="phone-enrolment">
        <form method="post" noValidate onSubmit={onConfirm} className="space-y-5">
          <CodeField id={ids.code} label={copy.codeLabel} disabled={busy} invalid={codeInvalid} />
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" variant="solid" disabled={busy}>
              {action.pending === 'phone-confirm' ? m.accountPage.pending : m.accountPage.mfa.confirm}
            </Button>
            <Button
              variant="outline"
              size="sm"
              onClick={resend}
              disabled={busy || wait > 0}
              data-testid="phone-resend"
            >
              {action.pending === 'phone-resend' ? m.accountPage.pending : copy.resend}
            </Button>
            <Button variant="link" size="sm" onClick={cancel} disabled={busy}>
              {m.accountPage.cancel}
            </Button>
          </div>
        </form>
        <p
          role="status"
          aria-live="polite"
          className="text-sm font-medium text-oasis-900"
          data-testid="phone-status"
        >
          {wait > 0 ? withSeconds(copy.wait, wait) : note}
        </p>
      </div>
    );

  return (
    <form method="post" noValidate onSubmit={onAdd} className="space-y-3" data-testid="phone-add">
      <Label htmlFor={ids.phone}>{copy.label}</Label>
      <p id={ids.hint} className="text-sm text-muted">
        {phoneHint(copy)}
      </p>
      <PhoneInput
        id={ids.phone}
        name="phone"
        required
        disabled={busy}
        aria-invalid={numberInvalid || undefined}
        aria-describedby={ids.hint}
        // The parser is fetched when someone starts on a number: by the time it is typed it is there,
        // and a visit that never adds a phone never loads it.
        onFocus={() => void loadPhoneParser().catch(() => {})}
      />
      <Button type="submit" variant="outline" disabled={busy}>
        {action.pending === 'phone' ? m.accountPage.pending : copy.add}
      </Button>
    </form>
  );
}
