import type { Session } from '@supabase/auth-js';
import { type FormEvent, useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { Button } from '~/components/ui/button.tsx';
import { CodeField } from '~/components/ui/code-field.tsx';
import { paths } from '~/config/paths.ts';
import { deleteAccount, fetchExport } from '~/features/account/lib/account-api.ts';
import { reauthenticationChannel } from '~/features/account/lib/reauthentication.ts';
import { useAction } from '~/features/account/lib/use-action.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import type { AuthClient } from '~/lib/auth-client.ts';
import { notifySuccess } from '~/lib/notify.ts';
import { Section, sixDigits } from './section.tsx';

/**
 * "Your data": the export (GET /account/export, saved as a JSON file) and the deletion of the
 * account (DELETE /account): the reauthentication code first (emailed, or texted to an account with
 * a phone and no email), then the deletion, which ends every session; this browser then forgets its
 * own and goes home.
 */
export function DataSection({
  auth,
  session,
  onDeleted,
}: {
  auth: AuthClient;
  session: Session;
  onDeleted: () => void;
}) {
  const m = useMessages();
  const locale = useLocale();
  const navigate = useNavigate();
  const copy = m.accountPage.data;
  const codeCopy = m.accountPage.reauthCode[reauthenticationChannel(session.user)];
  const action = useAction();
  const codeId = useId();
  const [askCode, setAskCode] = useState(false);
  const busy = action.pending !== undefined;

  const download = () =>
    void action.run('export', async () => {
      const blob = await fetchExport(session.access_token);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = 'namaa-account.json';
      link.click();
      // Released once the download has started: the file's contents do not stay in the page.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      action.succeed(copy.exportedTitle, copy.exported);
    });

  const start = () =>
    void action.run('start', async () => {
      const { error } = await auth.reauthenticate();
      if (error) return action.fail(action.errorText(error));
      setAskCode(true);
    });

  const onCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const nonce = sixDigits(form);
    if (!nonce) return action.fail(codeCopy.format);
    void action.run('delete', async () => {
      form.reset();
      try {
        await deleteAccount(session.access_token, nonce);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        return action.fail(
          code === 'reauthentication_not_valid'
            ? m.accountPage.password.codeInvalid
            : action.errorText(error),
        );
      }
      onDeleted();
      // The service has ended every session; this browser forgets its own.
      await auth.signOut({ scope: 'local' });
      notifySuccess(copy.deletedTitle, session.user.email ? copy.deleted : copy.deletedNoEmail);
      navigate(paths.home.getHref(locale), { replace: true });
    });
  };

  return (
    <Section name="data" heading={copy.heading} outcome={action.outcome}>
      <p className="text-muted">{copy.exportText}</p>
      <Button variant="outline" onClick={download} disabled={busy}>
        {action.pending === 'export' ? m.accountPage.pending : copy.exportButton}
      </Button>
      <h3 className="text-lg font-bold">{copy.deleteHeading}</h3>
      <p className="text-muted">{copy.deleteText}</p>
      {askCode ? (
        <form method="post" noValidate onSubmit={onCode} className="space-y-5" data-testid="delete-code-step">
          <p className="text-muted" data-testid="delete-code-text">
            {codeCopy.text}
          </p>
          <CodeField id={codeId} label={m.accountPage.password.codeLabel} disabled={busy} />
          <div className="flex items-center gap-3">
            <Button type="submit" variant="solid" disabled={busy}>
              {action.pending === 'delete' ? m.accountPage.pending : copy.deleteConfirm}
            </Button>
            <Button variant="link" size="sm" onClick={() => setAskCode(false)} disabled={busy}>
              {m.accountPage.cancel}
            </Button>
          </div>
        </form>
      ) : (
        <Button variant="outline" className="text-danger" onClick={start} disabled={busy}>
          {action.pending === 'start' ? m.accountPage.pending : copy.deleteStart}
        </Button>
      )}
    </Section>
  );
}
