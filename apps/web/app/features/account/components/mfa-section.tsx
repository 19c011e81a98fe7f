import type { Factor, User } from '@supabase/auth-js';
import { type FormEvent, useId, useState } from 'react';
import { Button } from '~/components/ui/button.tsx';
import { CodeField } from '~/components/ui/code-field.tsx';
import { Input } from '~/components/ui/input.tsx';
import { Label } from '~/components/ui/label.tsx';
import { e164Of } from '~/features/account/lib/phone-factor.ts';
import { useAction } from '~/features/account/lib/use-action.ts';
import { errorCode, isWrongSecondFactor } from '~/features/auth/lib/mfa.ts';
import { useServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { useMessages } from '~/i18n/locale-context.tsx';
import type { AuthClient } from '~/lib/auth-client.ts';
import { recoveryCodes } from '~/lib/recovery-codes.ts';
import { type PhoneEnrolment, PhoneFactorAdd } from './phone-factor-add.tsx';
import { RecoveryCodesSection } from './recovery-codes-section.tsx';
import { Section, sixDigits } from './section.tsx';

/** The number of a phone factor as the service lists it (auth-js's Factor type has no field for it). */
const factorPhone = (factor: Factor) => (factor as Factor & { phone?: string }).phone;

/** A TOTP enrolment waiting for its first code: what the QR code and the setup key show. */
type Enrolment = { id: string; qr: string; secret: string };

/**
 * auth-js hands the QR code as `data:image/svg+xml;utf-8,<svg …>`, unencoded: a `#` in the SVG
 * would end the URL there. The image gets the SVG percent-encoded.
 */
function qrImageSource(qr: string): string {
  const svg = qr.startsWith('data:') ? qr.slice(qr.indexOf(',') + 1) : qr;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/**
 * Two-step verification: the current assurance level, the factors (authenticator apps, security
 * keys and passkeys, phone numbers) with their names and state, enrolment of each kind (named at
 * enrolment; a phone by its number, offered only when the service can send SMS) and removal. The page is only shown at aal2 when a verified factor exists (a session owing its second
 * factor is sent through the sign-in's second step first), so removing one always has the step-up.
 * The TOTP secret lives in this component's state during the enrolment only: confirmed or cancelled,
 * it leaves the DOM.
 */
export function MfaSection({
  auth,
  user,
  aal,
  reload,
}: {
  auth: AuthClient;
  user: User;
  aal: string;
  reload: () => Promise<void>;
}) {
  const m = useMessages();
  const copy = m.accountPage.mfa;
  const action = useAction();
  const ids = { totpName: useId(), keyName: useId(), code: useId() };
  const [enrolment, setEnrolment] = useState<Enrolment | undefined>();
  const [phoneEnrolment, setPhoneEnrolment] = useState<PhoneEnrolment | undefined>();
  // Phone factors need the service to text codes (GET /settings' sms_provider).
  const smsOn = useServiceSettings()?.sms === true;
  const [codeInvalid, setCodeInvalid] = useState(false);
  const busy = action.pending !== undefined;
  // Recovery codes are listed in their own part below, with their own removal rules.
  const factors: Factor[] = (user.factors ?? []).filter((f) => (f.factor_type as string) !== 'recovery_code');
  // Bumped when a factor is confirmed: the recovery codes part then creates codes if there are none.
  const [confirmed, setConfirmed] = useState(0);
  const verified = factors.filter((f) => f.status === 'verified');

  /** Reads the account again, and the session too: its assurance level may have changed. */
  const refresh = async () => {
    await auth.refreshSession();
    await reload();
  };

  const onEnrolTotp = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const friendlyName = String(new FormData(form).get('name') ?? '').trim() || copy.totpName;
    void action.run('totp', async () => {
      const { data, error } = await auth.mfa.enroll({ factorType: 'totp', friendlyName });
      if (error) return action.fail(action.errorText(error));
      form.reset();
      setCodeInvalid(false);
      setEnrolment({ id: data.id, qr: qrImageSource(data.totp.qr_code), secret: data.totp.secret });
    });
  };

  const onConfirmTotp = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!enrolment) return;
    const code = sixDigits(event.currentTarget);
    if (!code) {
      setCodeInvalid(true);
      return action.fail(copy.codeFormat);
    }
    const form = event.currentTarget;
    void action.run('confirm', async () => {
      const { error } = await auth.mfa.challengeAndVerify({ factorId: enrolment.id, code });
      form.reset();
      if (error) {
        setCodeInvalid(true);
        return action.fail(isWrongSecondFactor(error) ? copy.codeInvalid : action.errorText(error));
      }
      setEnrolment(undefined);
      setCodeInvalid(false);
      action.succeed(copy.totpAddedTitle, copy.totpAdded);
      await reload();
      setConfirmed((n) => n + 1);
    });
  };

  const cancelEnrolment = () =>
    void action.run('cancel', async () => {
      const pending = enrolment;
      setEnrolment(undefined);
      // The unconfirmed factor would otherwise wait on the account until the service sweeps it.
      if (pending) await auth.mfa.unenroll({ factorId: pending.id });
      await reload();
    });

  const copySecret = () =>
    void action.run('copy', async () => {
      if (!enrolment) return;
      await navigator.clipboard.writeText(enrolment.secret);
      action.succeed(m.accountPage.doneTitle, copy.copied);
    });

  const onAddKey = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const friendlyName = String(new FormData(form).get('name') ?? '').trim() || copy.keyName;
    void action.run('key', async () => {
      // The ceremony step by step (enrol, challenge, the browser's create(), verify), as the
      // service's WebAuthn suite drives it; verifying raises this session to aal2.
      const rp = { rpId: window.location.hostname, rpOrigins: [window.location.origin] };
      const enrolled = await auth.mfa.enroll({ factorType: 'webauthn', friendlyName });
      if (enrolled.error) return action.fail(action.errorText(enrolled.error));
      const factorId = enrolled.data.id;
      const keyFailed = async (reason: unknown) => {
        console.error('Security key registration failed', reason);
        // The unconfirmed factor would otherwise wait on the account until the service sweeps it.
        await auth.mfa.unenroll({ factorId });
        action.fail(copy.keyFailed);
      };
      const challenge = await auth.mfa.challenge({ factorId, webauthn: rp });
      if (challenge.error || challenge.data.type !== 'webauthn') return keyFailed(challenge.error);
      const options = challenge.data.webauthn;
      if (options.type !== 'create') return keyFailed('not a create challenge');
      let credential: Credential | null;
      try {
        credential = await navigator.credentials.create({
          // auth-js has already decoded the options (buffers); its type is a superset of the DOM's.
          publicKey: options.credential_options.publicKey as PublicKeyCredentialCreationOptions,
        });
      } catch (error) {
        return keyFailed(error);
      }
      if (!credential) return keyFailed('no credential');
      const verified = await auth.mfa.verify({
        factorId,
        challengeId: challenge.data.id,
        webauthn: {
          type: 'create',
          ...rp,
          // biome-ignore lint/suspicious/noExplicitAny: auth-js types the response with its own DOM-like types
          credential_response: credential as any,
        },
      });
      if (verified.error) return keyFailed(verified.error);
      form.reset();
      action.succeed(copy.keyAddedTitle, copy.keyAdded);
      await refresh();
      setConfirmed((n) => n + 1);
    });
  };

  const remove = (factor: Factor) =>
    void action.run(`remove-${factor.id}`, async () => {
      // The service keeps recovery codes from outliving the last real factor (GoTrue's
      // mfa_recovery_codes_sole_factor): removing that factor turns two-step verification off, so the
      // codes go first.
      const last = factor.status === 'verified' && verified.length === 1;
      const hasCodes = (user.factors ?? []).some((f) => (f.factor_type as string) === 'recovery_code');
      const dropCodes = async () => (await recoveryCodes(auth).unenroll()).error;
      if (last && hasCodes) {
        const failed = await dropCodes();
        if (failed) return action.fail(action.errorText(failed));
      }
      let { error } = await auth.mfa.unenroll({ factorId: factor.id });
      // The page's copy of the account can be behind the service: codes created a moment ago, right
      // after this factor was confirmed, may not be in `user.factors` yet. The service then refuses
      // to leave them as the only factor; drop them and remove the factor again.
      if (errorCode(error) === 'mfa_recovery_codes_sole_factor') {
        const failed = await dropCodes();
        if (failed) return action.fail(action.errorText(failed));
        ({ error } = await auth.mfa.unenroll({ factorId: factor.id }));
      }
      if (error) return action.fail(action.errorText(error));
      action.succeed(copy.removedTitle, factor.friendly_name || copy.types[factor.factor_type as 'totp']);
      await refresh();
    });

  return (
    <Section name="mfa" heading={copy.heading} outcome={action.outcome}>
      <p className="text-sm font-medium" data-testid="account-aal" data-aal={aal}>
        {aal === 'aal2' ? copy.levelAal2 : copy.levelAal1}
      </p>
      {verified.length === 0 ? <p className="text-muted">{copy.none}</p> : null}
      {factors.length > 0 ? (
        <ul className="space-y-3" data-testid="account-factors">
          {factors.map((factor) => (
            <li
              key={factor.id}
              className="flex items-center justify-between gap-4 rounded-xl border border-sand-200 px-4 py-3"
              data-testid="account-factor"
              data-type={factor.factor_type}
              data-status={factor.status}
            >
              <div>
                <p className="font-semibold">
                  <bdi>{factor.friendly_name || copy.unnamed}</bdi>
                </p>
                <p className="text-sm text-muted">
                  {factor.factor_type === 'phone' && factor.friendly_name !== e164Of(factorPhone(factor)) ? (
                    <>
                      <bdi dir="ltr" data-testid="account-factor-phone">
                        {e164Of(factorPhone(factor))}
                      </bdi>
                      {' · '}
                    </>
                  ) : null}
                  {copy.types[factor.factor_type as keyof typeof copy.types] ?? factor.factor_type}
                  {' · '}
                  {factor.status === 'verified' ? copy.verified : copy.unverified}
                </p>
              </div>
              {factor.id !== enrolment?.id && factor.id !== phoneEnrolment?.id ? (
                <Button variant="outline" size="sm" onClick={() => remove(factor)} disabled={busy}>
                  {action.pending === `remove-${factor.id}` ? m.accountPage.pending : copy.remove}
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <RecoveryCodesSection auth={auth} user={user} reload={reload} issueAfter={confirmed} />
      {enrolment ? (
        <div className="space-y-5" data-testid="totp-enrolment">
          <p className="text-muted">{copy.scan}</p>
          <img src={enrolment.qr} alt={copy.qrAlt} width={200} height={200} data-testid="totp-qr" />
          <div className="space-y-2">
            <p className="text-sm font-semibold">{copy.secretLabel}</p>
            <p className="flex items-center gap-3">
              <code dir="ltr" data-testid="totp-secret" className="font-semibold">
                {enrolment.secret}
              </code>
              <Button variant="link" size="sm" onClick={copySecret} disabled={busy}>
                {copy.copy}
              </Button>
            </p>
          </div>
          <form method="post" noValidate onSubmit={onConfirmTotp} className="space-y-5">
            <CodeField id={ids.code} label={copy.codeLabel} disabled={busy} invalid={codeInvalid} />
            <div className="flex items-center gap-3">
              <Button type="submit" variant="solid" disabled={busy}>
                {action.pending === 'confirm' ? m.accountPage.pending : copy.confirm}
              </Button>
              <Button variant="link" size="sm" onClick={cancelEnrolment} disabled={busy}>
                {m.accountPage.cancel}
              </Button>
            </div>
          </form>
        </div>
      ) : phoneEnrolment ? null : (
        <>
          <form method="post" noValidate onSubmit={onEnrolTotp} className="space-y-3" data-testid="totp-add">
            <Label htmlFor={ids.totpName}>{copy.nameLabel}</Label>
            <Input
              id={ids.totpName}
              name="name"
              defaultValue={copy.totpName}
              maxLength={100}
              disabled={busy}
            />
            <Button type="submit" variant="outline" disabled={busy}>
              {action.pending === 'totp' ? m.accountPage.pending : copy.addTotp}
            </Button>
          </form>
          <form method="post" noValidate onSubmit={onAddKey} className="space-y-3" data-testid="key-add">
            <Label htmlFor={ids.keyName}>{copy.nameLabel}</Label>
            <Input id={ids.keyName} name="name" defaultValue={copy.keyName} maxLength={100} disabled={busy} />
            <Button type="submit" variant="outline" disabled={busy}>
              {action.pending === 'key' ? m.accountPage.pending : copy.addKey}
            </Button>
          </form>
        </>
      )}
      {smsOn && !enrolment ? (
        <PhoneFactorAdd
          auth={auth}
          user={user}
          action={action}
          enrolment={phoneEnrolment}
          onEnrolment={setPhoneEnrolment}
          onConfirmed={() => setConfirmed((n) => n + 1)}
          reload={reload}
        />
      ) : null}
    </Section>
  );
}
