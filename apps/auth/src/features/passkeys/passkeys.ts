// Passkeys as a first factor (GoTrue's /passkeys API, PASSKEY_ENABLED), through
// @simplewebauthn/server. A signed-in user registers discoverable credentials (resident keys); a
// visitor signs in with one without naming an account: the authenticator's user handle (the user
// id, as GoTrue's WebAuthnID) and the credential id lead to the account, and the signature over the
// server's single-use challenge proves it. The relying party is the MFA one (core/webauthn-rp.ts).
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { AdminCaller } from '../../core/http/guards.ts';
import { adminActor } from '../../core/http/guards.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { enforceRateLimits, perIpLimit } from '../../core/rate-limit.ts';
import { relyingParty, webauthn } from '../../core/webauthn-rp.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import { listFactors } from '../../db/mfa.repo.ts';
import {
  consumePasskeyChallenge,
  countPasskeys,
  deleteUserPasskey,
  findPasskeyByCredentialId,
  insertPasskey,
  insertPasskeyChallenge,
  listPasskeys,
  type PasskeyChallengeRow,
  type PasskeyChallengeType,
  type PasskeyRow,
  recordPasskeyUse,
  renamePasskey,
} from '../../db/passkeys.repo.ts';
import type { SessionRow } from '../../db/sessions.repo.ts';
import { findUserById, lockUserById, type UserRow, updateUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { hasVerifiedFactor } from '../mfa/index.ts';

/** GoTrue's passkey list item: `friendly_name` and `last_used_at` omitted when empty. */
export type PasskeyItem = { id: string; friendly_name?: string; created_at: string; last_used_at?: string };

export function passkeyItem(p: PasskeyRow): PasskeyItem {
  return {
    id: p.id,
    ...(p.friendlyName ? { friendly_name: p.friendlyName } : {}),
    created_at: p.createdAt.toISOString(),
    ...(p.lastUsedAt ? { last_used_at: p.lastUsedAt.toISOString() } : {}),
  };
}

export type CeremonyOptions = { challenge_id: string; options: Record<string, unknown>; expires_at: number };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function assertPasskeysEnabled(deps: Deps): void {
  if (!deps.config.passkey.enabled) throw new AuthError('passkey_disabled');
}

/** A passkey id in a path: anything but a uuid is GoTrue's 404 "Passkey not found". */
export function passkeyNotFound(): AuthError {
  return new AuthError('validation_failed', 'Passkey not found', { status: 404 });
}

export function parsePasskeyId(id: string): string {
  if (!UUID.test(id)) throw passkeyNotFound();
  return id.toLowerCase();
}

/**
 * GoTrue's rule for registering and deleting passkeys: an account with a verified MFA factor needs
 * an aal2 session (else a stolen password alone could add a way in that skips the second factor).
 */
async function requireManagementAal(deps: Deps, user: UserRow, session: SessionRow): Promise<void> {
  if (session.aal !== 'aal2' && hasVerifiedFactor(await listFactors(deps.db, user.id)))
    throw new AuthError(
      'insufficient_aal',
      'AAL2 session is required to manage passkeys when MFA is enabled',
      { status: 403 },
    );
}

function assertRegistrable(user: UserRow): void {
  if (user.isAnonymous)
    throw new AuthError('no_authorization', 'Anonymous user not allowed to perform these actions', {
      status: 403,
    });
}

async function openCeremony(
  deps: Deps,
  type: PasskeyChallengeType,
  userId: string | null,
  challenge: string,
  options: object,
): Promise<CeremonyOptions> {
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + deps.config.passkey.challengeExpiry * 1000);
  const row = await insertPasskeyChallenge(deps.db, { userId, type, challenge, expiresAt, now });
  return {
    challenge_id: row.id,
    options: options as Record<string, unknown>,
    expires_at: Math.floor(expiresAt.getTime() / 1000),
  };
}

/**
 * Takes the ceremony out of the database (single use, whatever the outcome: a failed attempt
 * cannot be retried against the same challenge) and tells GoTrue's two refusals apart.
 */
async function takeCeremony(
  deps: Deps,
  rawId: string,
  type: PasskeyChallengeType,
  userId: string | null,
): Promise<PasskeyChallengeRow> {
  if (!UUID.test(rawId)) throw new AuthError('validation_failed', 'challenge_id must be a valid UUID');
  const row = await consumePasskeyChallenge(deps.db, rawId.toLowerCase(), type, userId);
  if (!row) throw new AuthError('webauthn_challenge_not_found');
  if (row.expiresAt <= deps.clock()) throw new AuthError('webauthn_challenge_expired');
  return row;
}

/** POST /passkeys/registration/options: creation options for a discoverable credential. */
export async function startRegistration(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
): Promise<CeremonyOptions> {
  assertPasskeysEnabled(deps);
  assertRegistrable(user);
  await requireManagementAal(deps, user, session);
  const existing = await listPasskeys(deps.db, user.id);
  if (existing.length >= deps.config.passkey.maxPerUser) throw new AuthError('too_many_passkeys');
  const rp = relyingParty(deps.config);
  const name = user.email || user.phone || user.id;
  const displayName =
    typeof user.userMetadata.name === 'string' && user.userMetadata.name ? user.userMetadata.name : name;
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: name,
    userDisplayName: displayName,
    // GoTrue's WebAuthnID: the user id's text, so a sign-in's user handle names the account.
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    // The authenticator refuses to make a second passkey for this account on the same device.
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    timeout: deps.config.passkey.challengeExpiry * 1000,
  });
  return openCeremony(deps, 'registration', user.id, options.challenge, options);
}

/** POST /passkeys/registration/verify: checks the attestation and stores the passkey. */
export async function finishRegistration(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  input: { challengeId: string; credential: Record<string, unknown> },
  meta: RequestMeta,
): Promise<PasskeyItem> {
  assertPasskeysEnabled(deps);
  assertRegistrable(user);
  await requireManagementAal(deps, user, session);
  const ceremony = await takeCeremony(deps, input.challengeId, 'registration', user.id);
  const rp = relyingParty(deps.config);
  let verified: Awaited<ReturnType<Awaited<ReturnType<typeof webauthn>>['verifyRegistrationResponse']>>;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response: input.credential as unknown as RegistrationResponseJSON,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch (err) {
    deps.logger.info({ err: (err as Error).message }, 'passkey registration refused');
    throw new AuthError('webauthn_verification_failed');
  }
  if (!verified.verified || !verified.registrationInfo) throw new AuthError('webauthn_verification_failed');
  const info = verified.registrationInfo;
  const now = deps.clock();
  try {
    return await deps.db.transaction(async (tx) => {
      // Counted again under the user's row lock: two registrations finishing together cannot pass the cap.
      await lockUserById(tx, user.id);
      if ((await countPasskeys(tx, user.id)) >= deps.config.passkey.maxPerUser)
        throw new AuthError('too_many_passkeys');
      const row = await insertPasskey(tx, {
        userId: user.id,
        credentialId: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
        signCount: info.credential.counter,
        transports: info.credential.transports ?? [],
        aaguid: info.aaguid && info.aaguid !== '00000000-0000-0000-0000-000000000000' ? info.aaguid : null,
        backupEligible: info.credentialDeviceType === 'multiDevice',
        backedUp: info.credentialBackedUp,
        friendlyName: '',
        now,
      });
      await audit(tx, 'passkey_created', user.id, meta.ip, { passkey_id: row.id });
      return passkeyItem(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AuthError('webauthn_credential_exists');
    throw err;
  }
}

/** POST /passkeys/authentication/options: a discoverable sign-in (no account named, no list of ids). */
export async function startAuthentication(deps: Deps, meta: RequestMeta): Promise<CeremonyOptions> {
  assertPasskeysEnabled(deps);
  await passkeyIpLimit(deps, meta);
  const rp = relyingParty(deps.config);
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'preferred',
    timeout: deps.config.passkey.challengeExpiry * 1000,
  });
  return openCeremony(deps, 'authentication', null, options.challenge, options);
}

/** GoTrue's RATE_LIMIT_PASSKEY, on both steps of a sign-in (core/http/rate-limits.ts). */
function passkeyIpLimit(deps: Deps, meta: RequestMeta): Promise<void> {
  return enforceRateLimits(deps, [perIpLimit(deps, 'passkey', meta.ip)], deps.config.rateLimits.window);
}

const verificationFailed = () => new AuthError('webauthn_verification_failed');

/**
 * POST /passkeys/authentication/verify: the assertion against the ceremony's challenge and the
 * stored public key, then a session (AMR `passkey`). Every refusal about the credential is the same
 * webauthn_verification_failed, so an unknown credential and a bad signature look alike.
 */
export async function finishAuthentication(
  deps: Deps,
  input: { challengeId: string; credential: Record<string, unknown> },
  meta: RequestMeta,
): Promise<Session> {
  assertPasskeysEnabled(deps);
  await passkeyIpLimit(deps, meta);
  const ceremony = await takeCeremony(deps, input.challengeId, 'authentication', null);
  const response = input.credential as unknown as AuthenticationResponseJSON;
  const credentialId = typeof response.id === 'string' ? response.id : '';
  const passkey =
    credentialId.length > 0 && credentialId.length <= 1366
      ? await findPasskeyByCredentialId(deps.db, credentialId)
      : undefined;
  if (!passkey) throw verificationFailed();
  // The user handle, when the authenticator gives one, must name the passkey's owner.
  const handle = response.response?.userHandle;
  if (typeof handle === 'string' && handle !== '') {
    if (Buffer.from(handle, 'base64url').toString('utf8') !== passkey.userId) throw verificationFailed();
  }
  const rp = relyingParty(deps.config);
  let newCounter: number;
  try {
    const result = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: false,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.signCount,
        transports: passkey.transports as never,
      },
    });
    if (!result.verified) throw verificationFailed();
    newCounter = result.authenticationInfo.newCounter;
  } catch (err) {
    if (!(err instanceof AuthError))
      deps.logger.info({ err: (err as Error).message }, 'passkey sign-in refused');
    throw verificationFailed();
  }
  const now = deps.clock();
  const user = await findUserById(deps.db, passkey.userId);
  if (!user) throw verificationFailed();
  if (user.email && !user.emailConfirmedAt)
    throw new AuthError('email_not_confirmed', undefined, { status: 403 });
  if (user.phone && !user.email && !user.phoneConfirmedAt)
    throw new AuthError('phone_not_confirmed', undefined, { status: 403 });
  if (user.bannedUntil && user.bannedUntil > now)
    throw new AuthError('user_banned', undefined, { status: 403 });
  const signedIn = await deps.db.transaction(async (tx) => {
    // The counter moves from the value just checked, or the sign-in is refused: a cloned
    // authenticator (or a replayed assertion racing this one) cannot both get in.
    if (!(await recordPasskeyUse(tx, passkey.id, passkey.signCount, newCounter, now)))
      throw verificationFailed();
    const stamped = await updateUser(tx, user.id, { lastSignInAt: now });
    const started = await startSession(deps, tx, stamped, 'passkey', meta);
    await audit(tx, 'login', user.id, meta.ip, { provider: 'passkey', passkey_id: passkey.id });
    return { user: stamped, started };
  });
  return issueSession(deps, {
    user: signedIn.user,
    session: signedIn.started.session,
    refreshToken: signedIn.started.refreshToken,
  });
}

export async function listUserPasskeys(deps: Deps, userId: string): Promise<PasskeyItem[]> {
  return (await listPasskeys(deps.db, userId)).map(passkeyItem);
}

/** PATCH /passkeys/{id}: a new friendly name (1–120 characters, GoTrue's bounds). */
export async function renameUserPasskey(
  deps: Deps,
  user: UserRow,
  rawId: string,
  friendlyName: string | undefined,
  meta: RequestMeta,
): Promise<PasskeyItem> {
  assertPasskeysEnabled(deps);
  const id = parsePasskeyId(rawId);
  if (!friendlyName) throw new AuthError('validation_failed', 'friendly_name is required');
  if ([...friendlyName].length > 120)
    throw new AuthError('validation_failed', 'friendly_name must be 120 characters or less');
  const row = await deps.db.transaction(async (tx) => {
    const renamed = await renamePasskey(tx, user.id, id, friendlyName, deps.clock());
    if (renamed) await audit(tx, 'passkey_updated', user.id, meta.ip, { passkey_id: id });
    return renamed;
  });
  if (!row) throw passkeyNotFound();
  return passkeyItem(row);
}

/** DELETE /passkeys/{id} (the owner, aal2 when MFA is on) or the admin API's delete. */
export async function deletePasskey(
  deps: Deps,
  userId: string,
  rawId: string,
  meta: RequestMeta,
  by: { session: SessionRow; user: UserRow } | { admin: AdminCaller },
): Promise<void> {
  const id = parsePasskeyId(rawId);
  if ('session' in by) {
    assertPasskeysEnabled(deps);
    await requireManagementAal(deps, by.user, by.session);
  }
  const deleted = await deps.db.transaction(async (tx) => {
    const gone = await deleteUserPasskey(tx, userId, id);
    if (gone)
      await audit(tx, 'passkey_deleted', 'admin' in by ? null : userId, meta.ip, {
        passkey_id: id,
        ...('admin' in by ? { user_id: userId, ...adminActor(by.admin) } : {}),
      });
    return gone;
  });
  if (!deleted) throw passkeyNotFound();
}
