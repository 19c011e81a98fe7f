import type { User } from '@supabase/auth-js';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { CodeField } from '~/components/ui/code-field.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { fill, weakPasswordText } from '~/features/account/lib/password-reasons.ts';
import { reauthenticationChannel } from '~/features/account/lib/reauthentication.ts';
import { useAction } from '~/features/account/lib/use-action.ts';
import { credentialLimits, fieldError } from '~/features/auth/lib/credentials-schema.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import type { AuthClient } from '~/lib/auth-client.ts';
import { Section, sixDigits } from './section.tsx';

const codeOf = (error: unknown) =>
  error && typeof error === 'object' && 'code' in error ? (error as { code?: unknown }).code : undefined;

/**
 * The password change (`updateUser({ password })`). When the service wants proof that the owner is
 * at the keyboard (a session over 24 h old: `reauthentication_needed`), it mails a code, or texts
 * it to an account with a phone and no email (`reauthenticate()`), and the change is sent again with
 * it (`updateUser({ password, nonce })`).
 * The new password waits in memory only for that step, and is dropped when it ends.
 */
export function PasswordSection({ auth, user }: { auth: AuthClient; user: User }) {
  const m = useMessages();
  const locale = useLocale();
  const copy = m.accountPage.password;
  const codeCopy = m.accountPage.reauthCode[reauthenticationChannel(user)];
  const action = useAction();
  const ids = { password: useId(), code: useId() };
  const waiting = useRef<string | undefined>(undefined);
  const [askCode, setAskCode] = useState(false);
  const busy = action.pending !== undefined;

  /** The service's refusal in words: the policy's reasons, a same password, a wrong code. */
  const refusal = (error: unknown): string => {
    const code = codeOf(error);
    if (code === 'weak_password') {
      const reasons = (error as { reasons?: string[] }).reasons;
      return fill(copy.weak, weakPasswordText(reasons, copy.reasons, locale === 'ar' ? '، ' : '; '));
    }
    if (code === 'same_password') return copy.same;
    if (code === 'reauthentication_not_valid') return copy.codeInvalid;
    return action.errorText(error);
  };

  const finish = () => {
    waiting.current = undefined;
    setAskCode(false);
  };

  const change = async (password: string, nonce?: string) => {
    const { error } = await auth.updateUser(nonce ? { password, nonce } : { password });
    if (!error) {
      finish();
      action.succeed(copy.changedTitle, copy.changed);
      return;
    }
    if (codeOf(error) === 'reauthentication_needed') {
      const sent = await auth.reauthenticate();
      if (sent.error) {
        finish();
        return action.fail(action.errorText(sent.error));
      }
      waiting.current = password;
      setAskCode(true);
      return;
    }
    // A wrong code keeps the step open (ask again or for a new code); anything else ends it.
    if (codeOf(error) !== 'reauthentication_not_valid') finish();
    action.fail(refusal(error));
  };

  const onPassword = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const password = String(new FormData(form).get('password') ?? '');
    const problem = fieldError('password', password, m.auth.validation);
    if (problem) return action.fail(problem);
    void action.run('password', async () => {
      form.reset();
      await change(password);
    });
  };

  const onCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const code = sixDigits(form);
    if (!code) return action.fail(codeCopy.format);
    const password = waiting.current;
    if (!password) return finish();
    void action.run('code', async () => {
      form.reset();
      await change(password, code);
    });
  };

  const resend = () =>
    void action.run('resend', async () => {
      const { error } = await auth.reauthenticate();
      if (error) action.fail(action.errorText(error));
    });

  return (
    <Section name="password" heading={copy.heading} outcome={action.outcome}>
      {askCode ? (
        <form
          method="post"
          noValidate
          onSubmit={onCode}
          className="space-y-5"
          data-testid="password-code-step"
        >
          <p className="text-muted" data-testid="password-code-text">
            {codeCopy.text}
          </p>
          <CodeField id={ids.code} label={copy.codeLabel} disabled={busy} />
          <div className="flex items-center gap-3">
            <Button type="submit" variant="solid" disabled={busy}>
              {action.pending === 'code' ? m.accountPage.pending : copy.codeSubmit}
            </Button>
            <Button variant="link" size="sm" onClick={resend} disabled={busy}>
              {action.pending === 'resend' ? m.accountPage.pending : codeCopy.resend}
            </Button>
            <Button variant="link" size="sm" onClick={finish} disabled={busy}>
              {m.accountPage.cancel}
            </Button>
          </div>
        </form>
      ) : (
        <form method="post" noValidate onSubmit={onPassword} className="space-y-5">
          <div className="space-y-2">
            <Label htmlFor={ids.password}>{copy.newLabel}</Label>
            <Input
              id={ids.password}
              name="password"
              type="password"
              dir="ltr"
              autoComplete="new-password"
              required
              minLength={credentialLimits.passwordMin}
              maxLength={credentialLimits.passwordMax}
              disabled={busy}
            />
          </div>
          <Button type="submit" variant="solid" disabled={busy}>
            {action.pending === 'password' ? m.accountPage.pending : copy.submit}
          </Button>
        </form>
      )}
    </Section>
  );
}
