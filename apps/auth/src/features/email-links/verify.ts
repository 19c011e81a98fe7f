import type { Deps, RequestMeta } from '../../core/deps.ts';
import { normalizeEmail } from '../../core/email.ts';
import { otpHash } from '../../core/email-tokens.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { issueFlowAuthCode } from '../../core/pkce.ts';
import { codeAttemptLimit, enforceRateLimits, type Limit, perIpLimit } from '../../core/rate-limit.ts';
import { sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import {
  consumeByOtp,
  consumeByTokenHash,
  deleteUserTokens,
  type OneTimeTokenRow,
  type OneTimeTokenType,
} from '../../db/one-time-tokens.repo.ts';
import {
  applyEmailChange,
  confirmEmail,
  countEmailChangeConfirmation,
  findUserById,
} from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

/** The verify `type` values we serve, mapped to the stored token types they may consume. */
export const verifyTypes: Record<string, OneTimeTokenType[]> = {
  signup: ['confirmation'],
  // An invitation (POST /invite, generate_link type invite) is a confirmation token, as in GoTrue.
  invite: ['confirmation'],
  recovery: ['recovery'],
  email_change: ['email_change_new', 'email_change_current'],
  // `email` accepts a confirmation, recovery or magic-link token (GoTrue's rule: the code of any
  // mail that signs in, POST /otp's included).
  email: ['confirmation', 'recovery', 'magiclink'],
  // GoTrue keeps magic links in the recovery column, so a recovery token also verifies as magiclink.
  magiclink: ['magiclink', 'recovery'],
};

/**
 * The `type` a verification reports (the redirect's fragment): what the token was, as GoTrue names
 * it, so a recovery link always says `recovery` (the client then emits PASSWORD_RECOVERY) and an
 * `email` code says which mail it came from.
 */
function verifyTypeOf(tokenType: OneTimeTokenType, requested: string): string {
  if (tokenType === 'recovery') return 'recovery';
  if (tokenType === 'magiclink') return 'magiclink';
  return requested === 'email' ? 'signup' : requested;
}

export type VerifyInput = { type: string; tokenHash: string } | { type: string; email: string; code: string };

/** Consumes a link or code and signs the user in. Exactly one of N concurrent uses succeeds. */
export async function verifyToken(
  deps: Deps,
  input: VerifyInput,
  meta: RequestMeta,
  /** GET /verify (the link): a PKCE flow's link yields an auth code instead of a session. */
  options: { pkceLink?: boolean } = {},
): Promise<{
  session: Session | undefined;
  authCode?: string | undefined;
  tokenType: OneTimeTokenType;
  redirectTo: string | null;
  verifyType: string;
  /** The first confirmation of a secure email change: answer EMAIL_CHANGE_HALF_CONFIRMED. */
  halfConfirmed?: { pkceLink: boolean } | undefined;
}> {
  const types = verifyTypes[input.type];
  if (!types) throw new AuthError('validation_failed', `Invalid verification type: ${input.type}`);
  const rl = deps.config.rateLimits;
  const limits: Limit[] = [perIpLimit(deps, 'verify', meta.ip)];
  // A 6-digit code can be guessed; the per-address hourly budget bounds that across all IPs.
  if ('email' in input) limits.push(codeAttemptLimit(deps, normalizeEmail(input.email)));
  await enforceRateLimits(deps, limits, rl.window);

  const now = deps.clock();
  const expired = () =>
    new AuthError(
      'otp_expired',
      'tokenHash' in input ? 'Email link is invalid or has expired' : 'Token has expired or is invalid',
    );
  let result: {
    user: Awaited<ReturnType<typeof confirmEmail>>;
    session: Awaited<ReturnType<typeof startSession>> | undefined;
    token: OneTimeTokenRow;
    authCode?: string;
    half?: boolean;
  };
  try {
    result = await deps.db.transaction(async (tx) => {
      let token: OneTimeTokenRow | undefined;
      if ('tokenHash' in input) {
        token = await consumeByTokenHash(tx, sha256(input.tokenHash), types, now);
      } else {
        const email = normalizeEmail(input.email);
        const hashes = new Map(types.map((t) => [t, otpHash(deps, t, email, input.code)] as const));
        token = await consumeByOtp(tx, email, hashes, now);
      }
      if (!token) throw expired();
      const found = await findUserById(tx, token.userId);
      if (!found) throw expired();
      if (found.bannedUntil && found.bannedUntil > now)
        throw new AuthError('user_banned', undefined, { status: 403 });
      let user = found;
      if (token.tokenType === 'email_change_new' || token.tokenType === 'email_change_current') {
        // The link must belong to the change pending now (a newer change replaced older links, and
        // a link to the current address is void once that address is no longer the account's).
        const pending = user.emailChange;
        const addressed = token.tokenType === 'email_change_new' ? pending : user.email;
        if (!pending || token.relatesTo !== addressed) throw expired();
        const counted = await countEmailChangeConfirmation(tx, user.id);
        // First of two (secure change): accepted, nothing applied, nobody signed in.
        if (counted.emailChangeConfirmStatus < 2)
          return { user: counted, session: undefined, token, half: true };
        user = await applyEmailChange(tx, counted, pending, now);
        // Every outstanding link and code dies with the old address (a recovery link sent there
        // must not reopen the account once it belongs to the new one).
        await deleteUserTokens(tx, user.id);
        await audit(tx, 'email_changed', user.id, meta.ip, {});
      } else {
        // Confirmation, and also recovery (reaching the mailbox proves the address).
        user = await confirmEmail(tx, user, now);
        if (token.tokenType === 'confirmation') await deleteUserTokens(tx, user.id, ['confirmation']);
      }
      if (options.pkceLink && token.flowStateId) {
        // PKCE: the session is created when the client exchanges this code with its verifier.
        const authCode = await issueFlowAuthCode(deps, tx, token.flowStateId);
        return { user, session: undefined, token, authCode };
      }
      const session = await startSession(deps, tx, user, 'otp', meta);
      await audit(tx, 'login', user.id, meta.ip, { provider: 'email', method: input.type });
      return { user, session, token };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AuthError('email_exists');
    throw err;
  }
  if (result.half)
    return {
      session: undefined,
      tokenType: result.token.tokenType as OneTimeTokenType,
      redirectTo: result.token.redirectTo,
      verifyType: input.type,
      halfConfirmed: { pkceLink: !!result.token.flowStateId },
    };
  if (!result.session)
    return {
      session: undefined,
      authCode: result.authCode,
      tokenType: result.token.tokenType as OneTimeTokenType,
      redirectTo: result.token.redirectTo,
      verifyType: verifyTypeOf(result.token.tokenType as OneTimeTokenType, input.type),
    };
  const session = await issueSession(deps, {
    user: result.user,
    session: result.session.session,
    refreshToken: result.session.refreshToken,
  });
  const verifyType = verifyTypeOf(result.token.tokenType as OneTimeTokenType, input.type);
  return {
    session,
    tokenType: result.token.tokenType as OneTimeTokenType,
    redirectTo: result.token.redirectTo,
    verifyType,
  };
}
