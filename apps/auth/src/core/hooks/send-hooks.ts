// The two delivery hooks. send_sms replaces the SMS provider: it gets the user, the code and the
// number (GoTrue's `sms: {otp, sms_type, phone}`), and writes its own text. send_email replaces SMTP
// for the mail that carries a link or code: it gets the user and GoTrue's `email_data` (token,
// token_hash, redirect_to, email_action_type, site_url, token_new, token_hash_new).
import { findUserById } from '../../db/users.repo.ts';
import type { Deps } from '../deps.ts';
import type { SmsSender } from '../sms/sender.ts';
import { userJson } from '../user-json.ts';
import { runHook } from './hooks.ts';

type HookDeps = Pick<Deps, 'config' | 'db' | 'logger' | 'clock'>;

/** The SMS "provider" when HOOK_SEND_SMS_ENABLED is on: every code goes to the hook. */
export function hookSmsSender(deps: HookDeps): SmsSender {
  return {
    kind: 'hook',
    async send(m) {
      let user = m.hook?.user;
      if (!user && m.hook?.userId) {
        const row = await findUserById(deps.db, m.hook.userId);
        user = row ? userJson(row, []) : undefined;
      }
      await runHook(
        deps,
        'SEND_SMS',
        {
          user: user ?? {},
          sms: {
            otp: m.hook?.otp ?? '',
            // GoTrue names MFA codes `mfa` and a number change's `phone_change`; a sign-in code has none.
            ...(m.hook?.smsType ? { sms_type: m.hook.smsType } : {}),
            phone: m.to.replace(/^\+/, ''),
          },
        },
        m.hook?.ip,
      );
      return { messageId: undefined };
    },
  };
}

/**
 * GoTrue's email_data, kept with the outbox row until the hook has taken it (then blanked). GoTrue
 * sends every field, empty when the mail has no use for it: a notification has no token, and only
 * its own kind fills old_email, old_phone, provider or factor_type.
 */
export type HookEmailData = {
  token: string;
  token_hash: string;
  redirect_to: string;
  email_action_type: string;
  site_url: string;
  token_new: string;
  token_hash_new: string;
  old_email: string;
  old_phone: string;
  provider: string;
  factor_type: string;
};

/** email_data with every field GoTrue sends, the ones not given empty. */
export function hookEmailData(
  given: Partial<HookEmailData> & Pick<HookEmailData, 'email_action_type' | 'site_url'>,
): HookEmailData {
  return {
    token: '',
    token_hash: '',
    redirect_to: '',
    token_new: '',
    token_hash_new: '',
    old_email: '',
    old_phone: '',
    provider: '',
    factor_type: '',
    ...given,
  };
}

/**
 * Delivers one outbox message through the send-email hook (the dispatcher's transport when the hook
 * is on). The user is read at send time, as the hook should see it now; a notice whose account was
 * deleted carries the user as it was (`user` beside the email_data in the stored row).
 */
export async function sendEmailThroughHook(
  deps: HookDeps,
  message: { userId: string | null; emailData: Record<string, unknown> },
): Promise<void> {
  const { user: snapshot, ...emailData } = message.emailData;
  const row = message.userId ? await findUserById(deps.db, message.userId) : undefined;
  const user = row ? userJson(row, []) : (snapshot ?? {});
  await runHook(
    deps,
    'SEND_EMAIL',
    // A row written before old_email… were sent reads as GoTrue's full shape all the same.
    { user, email_data: { ...hookEmailData({ email_action_type: '', site_url: '' }), ...emailData } },
    undefined,
  );
}
