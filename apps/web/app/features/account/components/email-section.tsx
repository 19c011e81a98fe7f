import type { User } from '@supabase/auth-js';
import { type FormEvent, useId } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { paths } from '~/config/paths.ts';
import { emailChangeOutcome, pendingAsksBoth } from '~/features/account/lib/email-change.ts';
import { fill } from '~/features/account/lib/password-reasons.ts';
import { useAction } from '~/features/account/lib/use-action.ts';
import { credentialLimits, fieldError } from '~/features/auth/lib/credentials-schema.ts';
import { fetchServiceSettings, useServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import type { AuthClient } from '~/lib/auth-client.ts';
import { Section } from './section.tsx';

/**
 * The address, and its change (`updateUser({ email })`). The service's secure change mails a link to
 * both the current and the new address; the change happens when both are opened. With secure change
 * off, under MAILER_AUTOCONFIRM or without a current address only the new address gets a link (read
 * from GET /settings); an address already applied in the answer is said to be in use. A pending
 * change is shown until it is done.
 */
export function EmailSection({
  auth,
  user,
  reload,
}: {
  auth: AuthClient;
  user: User;
  reload: () => Promise<void>;
}) {
  const m = useMessages();
  const locale = useLocale();
  const copy = m.accountPage.email;
  const action = useAction();
  const ids = { next: useId() };
  const asksBoth = useServiceSettings()?.emailChangeAsksBoth;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const email = String(new FormData(form).get('email') ?? '').trim();
    const problem = fieldError('email', email, m.auth.validation);
    if (problem) return action.fail(problem);
    if (email.toLowerCase() === (user.email ?? '').toLowerCase()) return action.fail(copy.same);
    void action.run('email', async () => {
      const { data, error } = await auth.updateUser(
        { email },
        // The links land on the account page of this edition (the mail takes its language from it).
        { emailRedirectTo: `${window.location.origin}${paths.account.getHref(locale)}` },
      );
      if (error) return action.fail(action.errorText(error));
      form.reset();
      // The page's one settings request (shared), awaited: a quick submit must not outrun it.
      const settings = await fetchServiceSettings().catch(() => undefined);
      const outcome = emailChangeOutcome(email, user.email, data.user, settings?.emailChangeAsksBoth);
      if (outcome === 'changed') action.succeed(copy.changedTitle, fill(copy.changed, email));
      else if (outcome === 'both') action.succeed(copy.sentTitle, fill(copy.sent, email));
      else action.succeed(copy.sentNewTitle, fill(copy.sentNew, email));
      await reload();
    });
  };

  return (
    <Section name="email" heading={copy.heading} outcome={action.outcome}>
      <dl className="space-y-2">
        <dt className="text-sm font-semibold">{copy.current}</dt>
        <dd className="text-muted">
          {user.email ? (
            <bdi data-testid="account-email-address">{user.email}</bdi>
          ) : (
            <span data-testid="account-email-none">{copy.none}</span>
          )}
        </dd>
      </dl>
      {user.new_email ? (
        <p className="text-sm font-medium text-oasis-900" data-testid="account-email-pending">
          {/* Isolated (FSI … PDI): an address inside Arabic text keeps its own direction. */}
          {fill(
            pendingAsksBoth(user, asksBoth) ? copy.pendingChange : copy.pendingChangeNew,
            `\u2068${user.new_email}\u2069`,
          )}
        </p>
      ) : null}
      <form method="post" noValidate onSubmit={onSubmit} className="space-y-5">
        <div className="space-y-2">
          <Label htmlFor={ids.next}>{copy.newLabel}</Label>
          <Input
            id={ids.next}
            name="email"
            type="email"
            dir="ltr"
            inputMode="email"
            autoComplete="email"
            required
            maxLength={credentialLimits.emailMax}
            disabled={action.pending !== undefined}
          />
        </div>
        <Button type="submit" variant="solid" disabled={action.pending !== undefined}>
          {action.pending === 'email' ? m.accountPage.pending : copy.submit}
        </Button>
      </form>
    </Section>
  );
}
