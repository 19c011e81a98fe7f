import { useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { isCancelledCeremony, passkeysSupported } from '~/features/auth/lib/passkey.ts';
import { useServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient } from '~/lib/auth-client.ts';
import { notifySuccess } from '~/lib/notify.ts';

export type PasskeySignInProps = {
  disabled: boolean;
  /** A failed attempt's text, shown where the form shows its errors. */
  onError: (message: string) => void;
  onBusy: (busy: boolean) => void;
};

/**
 * "Sign in with a passkey" under the sign-in form: the discoverable sign-in (no email asked), the
 * browser offering the passkeys it holds for this site. The session that follows sends the
 * visitor home (AuthForm's session effect), or to the second factor when the account has one.
 * Shown only where the browser supports WebAuthn and GET /settings says `passkeys_enabled` (after
 * hydration; the prerendered page has none).
 */
export function PasskeySignIn({ disabled, onError, onBusy }: PasskeySignInProps) {
  const m = useMessages();
  const copy = m.auth.passkey;
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  // Only where the browser has WebAuthn and the service has passkeys on (PASSKEY_ENABLED).
  const passkeysOn = useServiceSettings()?.passkeys === true;
  if (!hydrated || !passkeysSupported() || !passkeysOn) return null;

  const signIn = async () => {
    setBusy(true);
    onBusy(true);
    try {
      const auth = await getAuthClient();
      const { error } = await auth.signInWithPasskey();
      if (!error) notifySuccess(m.auth.success.signInTitle, m.auth.success.signInText);
      else onError(isCancelledCeremony(error) ? copy.cancelled : copy.signInFailed);
    } catch (error) {
      console.error('Passkey sign-in failed', error);
      onError(m.auth.errors.fallback);
    } finally {
      setBusy(false);
      onBusy(false);
    }
  };

  return (
    <div className="mt-5">
      <p className="flex items-center gap-3 text-sm text-muted before:h-px before:flex-1 before:bg-current/20 after:h-px after:flex-1 after:bg-current/20">
        {copy.or}
      </p>
      <Button
        type="button"
        variant="outline"
        size="lg"
        className="mt-5 w-full text-oasis-800"
        onClick={signIn}
        disabled={disabled || busy}
        data-testid="passkey-signin"
      >
        {busy ? m.auth.pending : copy.signIn}
      </Button>
    </div>
  );
}
