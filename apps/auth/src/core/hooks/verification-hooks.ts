// The two verification-attempt hooks: told of every password sign-in and every second-factor code
// checked (right or wrong), each may answer `{"decision": "reject", "message": "…"}` to refuse it.
import type { Deps } from '../deps.ts';
import { answerObject, runHook } from './hooks.ts';

export type HookDecision = { reject: boolean; message: string; logoutUser: boolean };

const DEFAULT_PASSWORD_REJECTION = 'Further password verification attempts will be rejected.';
const DEFAULT_MFA_REJECTION = 'Further MFA verification attempts will be rejected.';

function decisionOf(answer: unknown, defaultMessage: string): HookDecision {
  const out = answerObject(answer);
  const message =
    typeof out.message === 'string' && out.message !== '' ? out.message.slice(0, 1000) : defaultMessage;
  return { reject: out.decision === 'reject', message, logoutUser: out.should_logout_user === true };
}

/** password_verification_attempt: `{user_id, valid}` → `{decision, message, should_logout_user}`. */
export async function passwordVerificationAttempt(
  deps: Pick<Deps, 'config' | 'db' | 'logger' | 'clock'>,
  input: { userId: string; valid: boolean; ip: string },
): Promise<HookDecision | undefined> {
  if (!deps.config.hooks.PASSWORD_VERIFICATION_ATTEMPT) return undefined;
  const answer = await runHook(
    deps,
    'PASSWORD_VERIFICATION_ATTEMPT',
    { user_id: input.userId, valid: input.valid },
    input.ip,
  );
  return decisionOf(answer, DEFAULT_PASSWORD_REJECTION);
}

/** mfa_verification_attempt: `{user_id, factor_id, factor_type, valid}` → `{decision, message}`. */
export async function mfaVerificationAttempt(
  deps: Pick<Deps, 'config' | 'db' | 'logger' | 'clock'>,
  input: { userId: string; factorId: string; factorType: string; valid: boolean; ip: string },
): Promise<HookDecision | undefined> {
  if (!deps.config.hooks.MFA_VERIFICATION_ATTEMPT) return undefined;
  const answer = await runHook(
    deps,
    'MFA_VERIFICATION_ATTEMPT',
    {
      user_id: input.userId,
      factor_id: input.factorId,
      factor_type: input.factorType,
      valid: input.valid,
    },
    input.ip,
  );
  return decisionOf(answer, DEFAULT_MFA_REJECTION);
}
