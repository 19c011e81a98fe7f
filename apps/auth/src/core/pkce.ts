// PKCE for email links (RFC 7636 as GoTrue uses it): sign-up, recovery, email change and resend take
// code_challenge + code_challenge_method; the link then redirects with ?code=<auth code>, which the
// client exchanges at POST /token?grant_type=pkce with its code_verifier. A social sign-in's callback
// makes its flow state complete at once (issueCompletedFlow), with the provider's tokens sealed in it.
import { createHash, randomUUID } from 'node:crypto';
import { openWithCode, sealWithCode } from '../crypto/code-seal.ts';
import { randomToken, safeEqual, sha256 } from '../crypto/tokens.ts';
import { audit } from '../db/audit.repo.ts';
import type { DbOrTx } from '../db/client.ts';
import {
  consumeFlowState,
  findFlowStateByCode,
  insertFlowState,
  issueAuthCode,
} from '../db/flow-state.repo.ts';
import type { OneTimeTokenType } from '../db/one-time-tokens.repo.ts';
import { findUserById } from '../db/users.repo.ts';
import { AuthError } from '../errors.ts';
import type { Deps, RequestMeta } from './deps.ts';
import type { Session } from './http/response-schemas.ts';
import { issueSession, startSession } from './issue-session.ts';

export type PkceParams = { challenge: string; method: 's256' | 'plain' };

const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/** Both fields or neither (the implicit flow sends nulls). */
export function parsePkceParams(body: {
  code_challenge?: string | null | undefined;
  code_challenge_method?: string | null | undefined;
}): PkceParams | undefined {
  const challenge = body.code_challenge ?? '';
  const method = (body.code_challenge_method ?? '').toLowerCase();
  if (challenge === '' && method === '') return undefined;
  if (challenge === '' || method === '')
    throw new AuthError('validation_failed', 'PKCE flow requires code_challenge_method and code_challenge');
  if (method !== 's256' && method !== 'plain')
    throw new AuthError('validation_failed', 'code challenge method not supported');
  if (!CHALLENGE.test(challenge))
    throw new AuthError('validation_failed', 'code challenge has to be between 43 and 128 characters');
  return { challenge, method };
}

/** GoTrue's amr methods for PKCE link flows. */
const AUTH_METHOD: Record<OneTimeTokenType, string> = {
  confirmation: 'email/signup',
  recovery: 'recovery',
  magiclink: 'magiclink',
  sms: 'otp', // never a PKCE flow
  phone_change: 'otp', // never a PKCE flow
  email_change_new: 'email_change',
  email_change_current: 'email_change',
  reauthentication: 'reauthentication', // never mailed as a link, so never a PKCE flow
};

/** Creates the flow state for a link being mailed (in the mail's transaction). */
export async function createFlowState(
  deps: Deps,
  tx: DbOrTx,
  userId: string,
  type: OneTimeTokenType,
  pkce: PkceParams,
): Promise<string> {
  const now = deps.clock();
  const row = await insertFlowState(tx, {
    userId,
    codeChallenge: pkce.challenge,
    codeChallengeMethod: pkce.method,
    authenticationMethod: AUTH_METHOD[type],
    placeholderHash: sha256(`unissued:${randomToken(16)}`),
    // The link's own lifetime; once used, the auth code gets FLOW_STATE_EXPIRY seconds.
    expiresAt: new Date(now.getTime() + deps.config.MAILER_OTP_EXP * 1000),
    now,
  });
  return row.id;
}

/** The link was verified: returns the auth code for the `?code=` redirect. */
export async function issueFlowAuthCode(deps: Deps, db: DbOrTx, flowStateId: string): Promise<string> {
  const code = randomUUID();
  const now = deps.clock();
  await issueAuthCode(
    db,
    flowStateId,
    sha256(code),
    now,
    new Date(now.getTime() + deps.config.FLOW_STATE_EXPIRY * 1000),
  );
  return code;
}

/** A provider's own OAuth tokens after a social sign-in (GoTrue passes them back to the client). */
export type ProviderTokens = { accessToken: string; refreshToken?: string | undefined };

/**
 * GoTrue's `provider_token` and `provider_refresh_token`, as the session answer and the implicit
 * redirect carry them: the refresh token only when the provider gave one (never empty).
 */
export function providerTokenFields(tokens: ProviderTokens | undefined): {
  provider_token?: string;
  provider_refresh_token?: string;
} {
  if (!tokens?.accessToken) return {};
  return {
    provider_token: tokens.accessToken,
    ...(tokens.refreshToken ? { provider_refresh_token: tokens.refreshToken } : {}),
  };
}

/** What the sealed provider tokens are (bound into the seal as its context). */
const PROVIDER_TOKENS_CONTEXT = 'flow_state.provider_tokens';

/**
 * A sign-in already completed elsewhere (a provider's callback): the flow state and its auth code
 * at once, for the `?code=` redirect the client exchanges with its verifier.
 *
 * The provider's tokens wait in the flow state for that exchange, as in GoTrue, but not in plain
 * text: they are live credentials for the user's Google/GitHub/… account, and an abandoned flow
 * state stays until the sweep removes it (expiry plus the retention), in the database and in any
 * backup or dump taken meanwhile. They are sealed (AES-256-GCM, crypto/code-seal.ts) under a key
 * derived from the auth code, which the database holds only as its SHA-256: only the client that
 * presents the code can have them opened, and no key needs configuring or rotating. (There is no
 * service-wide key for secrets at rest to use instead: BACKUP_KEY is optional and for backups.)
 */
export async function issueCompletedFlow(
  deps: Deps,
  tx: DbOrTx,
  f: {
    userId: string;
    pkce: PkceParams;
    providerType: string;
    authenticationMethod: string;
    providerTokens?: ProviderTokens | undefined;
  },
): Promise<string> {
  const code = randomUUID();
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + deps.config.FLOW_STATE_EXPIRY * 1000);
  const fields = providerTokenFields(f.providerTokens);
  const row = await insertFlowState(tx, {
    userId: f.userId,
    codeChallenge: f.pkce.challenge,
    codeChallengeMethod: f.pkce.method,
    authenticationMethod: f.authenticationMethod,
    providerType: f.providerType,
    placeholderHash: sha256(`unissued:${randomToken(16)}`),
    providerTokens: fields.provider_token
      ? sealWithCode(JSON.stringify(fields), code, PROVIDER_TOKENS_CONTEXT)
      : undefined,
    expiresAt,
    now,
  });
  await issueAuthCode(tx, row.id, sha256(code), now, expiresAt);
  return code;
}

function challengeOf(verifier: string, method: string): string {
  return method === 'plain' ? verifier : createHash('sha256').update(verifier).digest('base64url');
}

/** POST /token?grant_type=pkce */
export async function pkceGrant(
  deps: Deps,
  input: { auth_code?: string | undefined; code_verifier?: string | undefined },
  meta: RequestMeta,
): Promise<Session> {
  const authCode = input.auth_code ?? '';
  const verifier = input.code_verifier ?? '';
  if (authCode === '' || verifier === '')
    throw new AuthError(
      'validation_failed',
      'invalid request: both auth code and code verifier should be non-empty',
    );
  if (!CHALLENGE.test(verifier))
    throw new AuthError('validation_failed', 'code verifier should be between 43 and 128 characters');
  const flow = await findFlowStateByCode(deps.db, sha256(authCode));
  if (!flow?.authCodeIssuedAt || !flow.userId) throw new AuthError('flow_state_not_found');
  const now = deps.clock();
  if (flow.expiresAt <= now) throw new AuthError('flow_state_expired');
  if (!safeEqual(challengeOf(verifier, flow.codeChallengeMethod), flow.codeChallenge))
    throw new AuthError('bad_code_verifier');
  const providerTokens = flow.providerTokens ? openProviderTokens(flow.providerTokens, authCode) : {};
  const userId = flow.userId;
  const result = await deps.db.transaction(async (tx) => {
    // Used once: a second exchange finds nothing (GoTrue deletes the flow state too).
    if (!(await consumeFlowState(tx, flow.id))) throw new AuthError('flow_state_not_found');
    const user = await findUserById(tx, userId);
    if (!user) throw new AuthError('flow_state_not_found');
    if (user.bannedUntil && user.bannedUntil > now) throw new AuthError('user_banned');
    const started = await startSession(deps, tx, user, flow.authenticationMethod, meta);
    await audit(tx, 'login', user.id, meta.ip, { provider: flow.providerType, method: 'pkce' });
    return { user, ...started };
  });
  const session = await issueSession(deps, {
    user: result.user,
    session: result.session,
    refreshToken: result.refreshToken,
  });
  // GoTrue: the provider's tokens with the session, once (the flow state is gone now).
  return { ...session, ...providerTokens };
}

/** The sealed provider tokens of a flow state, opened with its auth code. */
function openProviderTokens(sealed: string, authCode: string): ReturnType<typeof providerTokenFields> {
  const opened = openWithCode(sealed, authCode, PROVIDER_TOKENS_CONTEXT);
  // The row was found by this code's hash, so only a changed row fails to open: refused before the
  // flow state is used up, rather than a session handed out without what the client expects.
  if (opened === undefined) throw new AuthError('unexpected_failure');
  const parsed = JSON.parse(opened) as { provider_token?: unknown; provider_refresh_token?: unknown };
  return providerTokenFields({
    accessToken: typeof parsed.provider_token === 'string' ? parsed.provider_token : '',
    refreshToken:
      typeof parsed.provider_refresh_token === 'string' ? parsed.provider_refresh_token : undefined,
  });
}
