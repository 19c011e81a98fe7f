// POST /otp for an address or number that has no account, when the request may not create one:
// `create_user: false` (the client's `shouldCreateUser`) or sign-ups closed. By default the caller
// answers as for a known account (nothing is created or sent), so the endpoint reveals nothing.
// OTP_REVEAL_UNKNOWN_USERS gives GoTrue's answers instead, in GoTrue's order: otp_disabled for
// create_user false, then signup_disabled.
import type { Config } from '../../config.ts';
import { AuthError } from '../../errors.ts';

/** true: create the account; false: answer as for a known one and do nothing; throws when revealing. */
export function mayCreateOtpAccount(
  config: Pick<Config, 'DISABLE_SIGNUP' | 'OTP_REVEAL_UNKNOWN_USERS'>,
  createUser: boolean,
): boolean {
  if (createUser && !config.DISABLE_SIGNUP) return true;
  if (config.OTP_REVEAL_UNKNOWN_USERS) throw new AuthError(createUser ? 'signup_disabled' : 'otp_disabled');
  return false;
}
