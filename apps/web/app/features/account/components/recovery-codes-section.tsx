import type { User } from '@supabase/auth-js';
import { useCallback, useEffect, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { useAction } from '~/features/account/lib/use-action.ts';
import { useMessages } from '~/i18n/locale-context.tsx';
import type { AuthClient } from '~/lib/auth-client.ts';
import { formatRecoveryCode, type RecoveryCodesStatus, recoveryCodes } from '~/lib/recovery-codes.ts';

/** True for an account with a verified factor other than recovery codes (codes back one up, never stand alone). */
function hasSecondFactor(user: User): boolean {
  return (user.factors ?? []).some(
    (f) => f.status === 'verified' && (f.factor_type as string) !== 'recovery_code',
  );
}

/**
 * The MFA recovery codes, inside the two-step verification section: how many are left, and a new set
 * (which replaces the old one). A fresh set is shown this once, with Copy and Download (.txt); it is
 * created on its own right after the first factor is confirmed (`issueAfter` changes), so nobody
 * leaves the enrolment without a way back in.
 */
export function RecoveryCodesSection({
  auth,
  user,
  reload,
  issueAfter = 0,
}: {
  auth: AuthClient;
  user: User;
  reload: () => Promise<void>;
  /** Bumped by the factor list when a factor was just confirmed: create codes if there are none. */
  issueAfter?: number;
}) {
  const m = useMessages();
  const copy = m.accountPage.mfa.recovery;
  const action = useAction();
  const [status, setStatus] = useState<RecoveryCodesStatus | null | undefined>();
  const [fresh, setFresh] = useState<string[] | undefined>();
  const busy = action.pending !== undefined;
  const eligible = hasSecondFactor(user);

  const loadStatus = useCallback(async () => {
    const { data, error } = await recoveryCodes(auth).getStatus();
    if (error && error.status !== 404) throw error;
    setStatus(data);
    return data;
  }, [auth]);

  useEffect(() => {
    if (eligible) void loadStatus().catch((error) => console.error('Recovery codes status failed', error));
  }, [eligible, loadStatus]);

  const issue = (regenerate: boolean) =>
    void action.run(regenerate ? 'regenerate' : 'generate', async () => {
      const api = recoveryCodes(auth);
      const { data, error } = regenerate ? await api.regenerate() : await api.generate();
      if (error) return action.fail(action.errorText(error));
      setFresh(data.codes);
      setStatus({ id: data.id, total: data.total, remaining: data.codes.length });
      action.succeed(copy.createdTitle, copy.saveText);
      await reload();
    });

  // Right after a factor is confirmed: codes are created when the account has none yet.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per confirmed factor, not per render
  useEffect(() => {
    if (issueAfter === 0) return;
    void action.run('generate', async () => {
      if (await loadStatus()) return;
      const { data, error } = await recoveryCodes(auth).generate();
      if (error) return action.fail(action.errorText(error));
      setFresh(data.codes);
      setStatus({ id: data.id, total: data.total, remaining: data.codes.length });
      await reload();
    });
  }, [issueAfter]);

  const text = () => [copy.fileHeading, '', ...(fresh ?? []).map(formatRecoveryCode), ''].join('\n');

  const copyCodes = () =>
    void action.run('copy', async () => {
      await navigator.clipboard.writeText(text());
      action.succeed(m.accountPage.doneTitle, copy.copied);
    });

  const download = () => {
    const url = URL.createObjectURL(new Blob([text()], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'namaa-recovery-codes.txt';
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  if (!eligible && !status) return null;
  return (
    <div className="space-y-3 rounded-xl border border-sand-200 px-4 py-3" data-testid="recovery-codes">
      <h3 className="font-semibold">{copy.heading}</h3>
      <p className="text-sm text-muted">{copy.text}</p>
      {action.outcome?.tone === 'error' ? (
        <p className="text-sm text-red-700" role="alert">
          {action.outcome.text}
        </p>
      ) : null}
      {status ? (
        <p
          className="text-sm font-medium"
          data-testid="recovery-codes-left"
          data-remaining={status.remaining}
        >
          {copy.left.replace('{0}', String(status.remaining)).replace('{1}', String(status.total))}
        </p>
      ) : status === null ? (
        <p className="text-sm">{copy.none}</p>
      ) : null}
      {fresh ? (
        <div className="space-y-3" data-testid="recovery-codes-fresh">
          <p className="font-semibold">{copy.saveTitle}</p>
          <p className="text-sm text-muted">{copy.saveText}</p>
          <ul dir="ltr" className="grid grid-cols-2 gap-2 font-mono text-sm" data-testid="recovery-code-list">
            {fresh.map((code) => (
              <li key={code} data-testid="recovery-code">
                {formatRecoveryCode(code)}
              </li>
            ))}
          </ul>
          <div className="flex flex-wrap items-center gap-3">
            <Button variant="outline" size="sm" onClick={copyCodes} disabled={busy}>
              {copy.copy}
            </Button>
            <Button
              variant="outline"
              size="sm"
              onClick={download}
              disabled={busy}
              data-testid="recovery-download"
            >
              {copy.download}
            </Button>
            <Button
              variant="solid"
              size="sm"
              onClick={() => setFresh(undefined)}
              data-testid="recovery-saved"
            >
              {copy.saved}
            </Button>
          </div>
        </div>
      ) : eligible ? (
        <div className="space-y-2">
          {status ? <p className="text-sm text-muted">{copy.regenerateNote}</p> : null}
          <Button
            variant="outline"
            size="sm"
            onClick={() => issue(Boolean(status))}
            disabled={busy}
            data-testid="recovery-issue"
          >
            {action.pending === 'generate' || action.pending === 'regenerate'
              ? m.accountPage.pending
              : status
                ? copy.regenerate
                : copy.generate}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
