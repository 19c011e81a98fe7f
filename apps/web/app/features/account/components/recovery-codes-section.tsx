import type { User } from '@supabase/auth-js';
import type { AuthClient } from '~/lib/auth-client.ts';

/**
 * The place of the MFA recovery codes on the account page ("codes left", "regenerate"), inside the
 * two-step verification section, under the list of factors. It renders nothing until the recovery
 * codes feature (issue: MFA recovery codes) fills it in; its props are what that part will need.
 */
export function RecoveryCodesSection(_props: { auth: AuthClient; user: User; reload: () => Promise<void> }) {
  return null;
}
