import { useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { isCancelledCeremony, passkeysSupported } from '~/features/auth/lib/passkey.ts';
import { useServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient } from '~/lib/auth-client.ts';
import { notifyError, notifySuccess } from '~/lib/notify.ts';
import { cn } from '~/lib/utils.ts';

/**
 * "Add a passkey" for a signed-in visitor: the registration ceremony of the official client
 * (`registerPasskey`), then a toast. Self-contained (its own copy, client and toasts), so any
 * signed-in page can place it; the home page puts it in the navigation's signed-in controls.
 * Renders nothing where the browser has no WebAuthn or the service has passkeys off.
 */
export function PasskeyRegister({ className }: { className?: string }) {
  const m = useMessages();
  const copy = m.auth.passkey;
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  // Only where the browser has WebAuthn and the service has passkeys on (PASSKEY_ENABLED).
  const passkeysOn = useServiceSettings()?.passkeys === true;
  if (!hydrated || !passkeysSupported() || !passkeysOn) return null;

  const register = async () => {
    setBusy(true);
    try {
      const auth = await getAuthClient();
      const { error } = await auth.registerPasskey();
      if (!error) notifySuccess(m.auth.success.signUpTitle, copy.added);
      else if (!isCancelledCeremony(error)) notifyError(m.auth.errors.title, copy.addFailed);
    } catch (error) {
      console.error('Passkey registration failed', error);
      notifyError(m.auth.errors.title, copy.addFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button
      type="button"
      variant="outline"
      size="sm"
      className={cn('text-white', className)}
      onClick={register}
      disabled={busy}
      data-testid="passkey-add"
    >
      {busy ? m.auth.pending : copy.add}
    </Button>
  );
}
