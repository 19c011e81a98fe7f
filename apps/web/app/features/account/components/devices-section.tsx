import { startTransition, useEffect, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { type AccountSession, listSessions } from '~/features/account/lib/account-api.ts';
import { formatLastActive } from '~/features/account/lib/last-active.ts';
import { fill } from '~/features/account/lib/password-reasons.ts';
import { useAction } from '~/features/account/lib/use-action.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import type { AuthClient } from '~/lib/auth-client.ts';
import { Section } from './section.tsx';

/** A short name for a browser from its user agent ("Chrome on Linux"), or the whole string. */
export function describeUserAgent(agent: string | null): string | undefined {
  if (!agent) return undefined;
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : undefined;
  const os = /Android/.test(agent)
    ? 'Android'
    : /iPhone|iPad/.test(agent)
      ? 'iOS'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : undefined;
  if (browser && os) return `${browser} · ${os}`;
  return browser ?? agent.slice(0, 80);
}

/**
 * Where the account is signed in (GET /account/sessions, our extension: user agent and last
 * activity), and "Sign out of all other devices" (`signOut({ scope: 'others' })`).
 */
export function DevicesSection({ auth, accessToken }: { auth: AuthClient; accessToken: string }) {
  const m = useMessages();
  const locale = useLocale();
  const copy = m.accountPage.devices;
  const action = useAction();
  const [sessions, setSessions] = useState<AccountSession[] | undefined>();

  useEffect(() => {
    let cancelled = false;
    listSessions(accessToken).then(
      // Through startTransition, as the page's first account render (lib/use-account.ts).
      (list) => !cancelled && startTransition(() => setSessions(list)),
      (error) => console.error('Could not list the sessions', error),
    );
    return () => {
      cancelled = true;
    };
  }, [accessToken]);

  const signOutOthers = () =>
    void action.run('others', async () => {
      const { error } = await auth.signOut({ scope: 'others' });
      if (error) return action.fail(action.errorText(error));
      action.succeed(copy.signedOutTitle, copy.signedOut);
      setSessions(await listSessions(accessToken));
    });

  return (
    <Section name="devices" heading={copy.heading} text={copy.text} outcome={action.outcome}>
      {sessions ? (
        <ul className="space-y-3" data-testid="account-sessions">
          {sessions.map((s) => (
            <li
              key={s.id}
              className="rounded-xl border border-sand-200 px-4 py-3"
              data-testid="account-session"
              data-current={s.current || undefined}
            >
              <p className="font-semibold">
                <bdi>{describeUserAgent(s.user_agent) ?? copy.unknownDevice}</bdi>
                {s.current ? <span className="text-sm text-oasis-700"> · {copy.thisDevice}</span> : null}
              </p>
              <p className="text-sm text-muted">
                {fill(copy.lastActive, formatLastActive(s.last_active_at, locale))}
              </p>
            </li>
          ))}
        </ul>
      ) : null}
      <Button variant="outline" onClick={signOutOthers} disabled={action.pending !== undefined}>
        {action.pending === 'others' ? m.accountPage.pending : copy.signOutOthers}
      </Button>
    </Section>
  );
}
