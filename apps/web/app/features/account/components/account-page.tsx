import { useEffect, useId, useRef } from 'react';
import { useNavigate } from 'react-router';
import { SiteNav } from '~/components/layout/site-nav.tsx';
import { paths, signInHrefFor } from '~/config/paths.ts';
import { useAccount } from '~/features/account/lib/use-account.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { DataSection } from './data-section.tsx';
import { DevicesSection } from './devices-section.tsx';
import { EmailSection } from './email-section.tsx';
import { MfaSection } from './mfa-section.tsx';
import { PasswordSection } from './password-section.tsx';

/**
 * `/account`: the signed-in visitor's account. The prerendered shell shows the heading and a
 * loading line; the client (loaded at once: the page needs the session) fills in the sections. A
 * visitor without a session, or one still owing the second factor, is sent to sign in and comes back
 * here afterwards (`?next=`).
 */
export function AccountPage() {
  const m = useMessages();
  const locale = useLocale();
  const navigate = useNavigate();
  const headingId = useId();
  const { state, auth, reload } = useAccount();
  const leaving = useRef(false);

  useEffect(() => {
    if (state.status === 'away' && !leaving.current)
      navigate(signInHrefFor(locale, paths.account.getHref(locale)), { replace: true });
  }, [state.status, navigate, locale]);

  return (
    <>
      <SiteNav page="account" />
      <main id="main" className="min-h-dvh bg-oasis-950 px-4 pt-16 pb-8 sm:px-6">
        <div className="mx-auto w-full max-w-2xl space-y-5 py-8">
          <div className="text-white">
            <h1 id={headingId} className="text-3xl font-extrabold tracking-tight">
              {m.accountPage.heading}
            </h1>
            <p className="mt-2 text-oasis-100">{m.accountPage.text}</p>
          </div>
          {state.status === 'ready' && auth ? (
            <>
              <EmailSection auth={auth} user={state.user} reload={reload} />
              <PasswordSection auth={auth} user={state.user} />
              <MfaSection auth={auth} user={state.user} aal={state.aal} reload={reload} />
              <DevicesSection auth={auth} accessToken={state.session.access_token} />
              <DataSection
                auth={auth}
                session={state.session}
                onDeleted={() => {
                  leaving.current = true;
                }}
              />
            </>
          ) : (
            <p role="status" className="text-oasis-100" data-testid="account-loading">
              {m.accountPage.loading}
            </p>
          )}
        </div>
      </main>
    </>
  );
}
