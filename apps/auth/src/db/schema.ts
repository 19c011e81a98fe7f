// The whole auth schema, including the tables later issues need (MFA, PKCE, key rotation), so that
// there is one migration history. All ids are uuids and every time is timestamptz.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const created = () => tz('created_at').notNull().defaultNow();
const updated = () => tz('updated_at').notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    aud: text('aud').notNull().default('authenticated'),
    role: text('role').notNull().default('authenticated'),
    // Always stored lower-cased; the unique index makes concurrent sign-ups of one address one user.
    email: text('email'),
    encryptedPassword: text('encrypted_password'),
    emailConfirmedAt: tz('email_confirmed_at'),
    invitedAt: tz('invited_at'),
    confirmationSentAt: tz('confirmation_sent_at'),
    recoverySentAt: tz('recovery_sent_at'),
    emailChange: text('email_change'),
    emailChangeSentAt: tz('email_change_sent_at'),
    // Confirmations a pending email change has (GoTrue's column): it is applied at 2. A secure change
    // starts at 0 (current and new address must both confirm), a single-link change at 1.
    emailChangeConfirmStatus: smallint('email_change_confirm_status').notNull().default(0),
    phone: text('phone'),
    phoneConfirmedAt: tz('phone_confirmed_at'),
    phoneChange: text('phone_change'),
    phoneChangeSentAt: tz('phone_change_sent_at'),
    reauthenticationSentAt: tz('reauthentication_sent_at'),
    lastSignInAt: tz('last_sign_in_at'),
    appMetadata: jsonb('raw_app_meta_data').$type<Record<string, unknown>>().notNull().default({}),
    userMetadata: jsonb('raw_user_meta_data').$type<Record<string, unknown>>().notNull().default({}),
    isAnonymous: boolean('is_anonymous').notNull().default(false),
    bannedUntil: tz('banned_until'),
    deletedAt: tz('deleted_at'),
    // PDPL consent (core/privacy-consent.ts): the privacy notice accepted at sign-up, and when. Columns
    // of their own, not user_metadata, which the user can rewrite with updateUser.
    privacyNoticeVersion: text('privacy_notice_version'),
    privacyNoticeAcceptedAt: tz('privacy_notice_accepted_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    // The sweep of never-confirmed sign-ups (RETENTION_UNCONFIRMED_USERS): only those rows. The
    // predicate names no column a sign-in or refresh writes (last_sign_in_at stays a filter), so
    // those updates stay HOT.
    index('users_unconfirmed_created_idx')
      .on(t.createdAt)
      .where(
        sql`email_confirmed_at is null and phone_confirmed_at is null and invited_at is null and not is_anonymous`,
      ),
    uniqueIndex('users_phone_key').on(t.phone),
    index('users_created_at_idx').on(t.createdAt),
    // findUserByPendingEmail (POST /resend type email_change, with the public key): mostly null.
    index('users_email_change_idx').on(t.emailChange).where(sql`email_change is not null`),
    // findUserByPendingPhone (a phone change's code).
    index('users_phone_change_idx').on(t.phoneChange).where(sql`phone_change is not null`),
  ],
);

export const identities = pgTable(
  'identities',
  {
    id: uuid('id').primaryKey(),
    providerId: text('provider_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    identityData: jsonb('identity_data').$type<Record<string, unknown>>().notNull().default({}),
    provider: text('provider').notNull(),
    email: text('email'),
    lastSignInAt: tz('last_sign_in_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('identities_provider_key').on(t.providerId, t.provider),
    index('identities_user_id_idx').on(t.userId),
  ],
);

export type AmrEntry = { method: string; timestamp: number; provider?: string };

// fillfactor 90 (migration 0013, which drizzle's schema cannot express): room in each page for a
// refresh's new row version, so the update is HOT from a session's first refresh on.
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    aal: text('aal').notNull().default('aal1'),
    // Authentication method references, newest first, copied into the access token's `amr` claim.
    amr: jsonb('amr').$type<AmrEntry[]>().notNull().default([]),
    factorId: uuid('factor_id'),
    notAfter: tz('not_after'),
    // When the active refresh token was issued (= when its parent was rotated).
    refreshedAt: tz('refreshed_at'),
    // SHA-256 of the session's one active refresh token (core/refresh-token.ts); null only for a
    // session begun before this column, whose active token is still a refresh_tokens row.
    refreshTokenHash: text('refresh_token_hash'),
    // When the active token's parent was issued (= when the grandparent was rotated): the reuse
    // rules' clock for a token two rotations back (features/session/refresh.ts).
    refreshTokenPreviousAt: tz('refresh_token_previous_at'),
    // A UTC day at most a week before refreshed_at's, for the inactivity sweep's index: a refresh
    // moves it only once it is a week behind, so the other refreshes of the week stay HOT updates
    // (an index on refreshed_at itself would make every refresh write every index of the table).
    refreshedOn: date('refreshed_on', { mode: 'string' }),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('sessions_user_id_idx').on(t.userId),
    // downgradeSessionsOfFactor (unenrolling a factor): only aal2 sessions name one.
    index('sessions_factor_id_idx').on(t.factorId).where(sql`factor_id is not null`),
    // The sweep of timeboxed sessions. created_at never changes, so a refresh's session update
    // stays a HOT update (no column of an index changes); refreshed_at is deliberately NOT indexed
    // for that reason: inactive sessions are found by refreshed_on instead.
    index('sessions_created_at_idx').on(t.createdAt),
    index('sessions_refreshed_on_idx').on(t.refreshedOn).where(sql`refreshed_on is not null`),
    index('sessions_not_after_idx').on(t.notAfter).where(sql`not_after is not null`),
  ],
);

// Refresh tokens issued before sessions.refresh_token_hash (one row per token). Nothing new is
// written here; the rows of sessions begun before the upgrade serve until their first refresh and
// are swept like any rotated token after it.
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    // SHA-256 of the token; the token itself is never stored.
    tokenHash: text('token_hash').notNull(),
    parentHash: text('parent_hash'),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    revoked: boolean('revoked').notNull().default(false),
    revokedAt: tz('revoked_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_hash_key').on(t.tokenHash),
    index('refresh_tokens_session_idx').on(t.sessionId, t.revoked),
    // The sweeps: revoked tokens by the time of their rotation (updated_at = revoked_at), and
    // inactive sessions by their active token's creation (= the session's last refresh).
    index('refresh_tokens_sweep_idx').on(t.revoked, t.updatedAt),
  ],
);

export const oneTimeTokens = pgTable(
  'one_time_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    // confirmation | recovery | email_change_new | email_change_current | reauthentication
    tokenType: text('token_type').notNull(),
    // SHA-256 of the link token.
    tokenHash: text('token_hash').notNull(),
    // HMAC of the 6-digit code (keyed, so a database dump does not give the codes away).
    otpHash: text('otp_hash').notNull(),
    // The address the token was sent to.
    relatesTo: text('relates_to').notNull(),
    redirectTo: text('redirect_to'),
    flowStateId: uuid('flow_state_id'),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: tz('expires_at').notNull(),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('one_time_tokens_token_hash_key').on(t.tokenHash),
    index('one_time_tokens_relates_to_idx').on(t.relatesTo, t.tokenType),
    index('one_time_tokens_user_idx').on(t.userId, t.tokenType),
    index('one_time_tokens_expires_at_idx').on(t.expiresAt),
  ],
);

export const flowState = pgTable(
  'flow_state',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    authCodeHash: text('auth_code_hash').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    codeChallengeMethod: text('code_challenge_method').notNull(),
    providerType: text('provider_type').notNull().default('email'),
    authenticationMethod: text('authentication_method').notNull(),
    authCodeIssuedAt: tz('auth_code_issued_at'),
    // A social sign-in's provider tokens (GoTrue's provider_access_token / provider_refresh_token),
    // handed over at the code exchange: sealed with a key derived from the auth code, which is
    // stored only hashed (crypto/code-seal.ts). Null for email links.
    providerTokens: text('provider_tokens'),
    usedAt: tz('used_at'),
    expiresAt: tz('expires_at').notNull(),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('flow_state_auth_code_hash_key').on(t.authCodeHash),
    index('flow_state_expires_at_idx').on(t.expiresAt),
    // Deleting a user cascades here: without it every account deletion read the whole table.
    index('flow_state_user_idx').on(t.userId),
  ],
);

export const mfaFactors = pgTable(
  'mfa_factors',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    friendlyName: text('friendly_name').notNull().default(''),
    factorType: text('factor_type').notNull(), // totp | phone | webauthn | recovery_code
    status: text('status').notNull().default('unverified'), // unverified | verified
    secret: text('secret'),
    phone: text('phone'),
    webauthnCredential: jsonb('web_authn_credential').$type<Record<string, unknown>>(),
    webauthnAaguid: uuid('web_authn_aaguid'),
    lastChallengedAt: tz('last_challenged_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('mfa_factors_user_friendly_name_key').on(t.userId, t.friendlyName),
    index('mfa_factors_user_idx').on(t.userId),
    // One recovery-code factor per user (GoTrue's partial unique index).
    uniqueIndex('mfa_factors_user_recovery_code_key').on(t.userId).where(sql`factor_type = 'recovery_code'`),
    // The abandoned-enrolment sweep (deleteExpiredUnverifiedFactors).
    index('mfa_factors_unverified_idx')
      .on(sql`coalesce(last_challenged_at, created_at)`)
      .where(sql`status = 'unverified'`),
  ],
);

export const mfaChallenges = pgTable(
  'mfa_challenges',
  {
    id: uuid('id').primaryKey(),
    factorId: uuid('factor_id')
      .notNull()
      .references(() => mfaFactors.id, { onDelete: 'cascade' }),
    ipAddress: text('ip_address').notNull(),
    otpCodeHash: text('otp_code_hash'),
    webauthnSessionData: jsonb('web_authn_session_data').$type<Record<string, unknown>>(),
    verifiedAt: tz('verified_at'),
    expiresAt: tz('expires_at').notNull(),
    createdAt: created(),
  },
  (t) => [
    index('mfa_challenges_factor_idx').on(t.factorId),
    index('mfa_challenges_expires_at_idx').on(t.expiresAt),
  ],
);

/**
 * A recovery-code factor's set (GoTrue's mfa_recovery_code_sets): one per factor, replaced whole on
 * regenerate. It carries the verify lockout, so wrong guesses are counted per user, not per IP.
 */
export const mfaRecoveryCodeSets = pgTable('mfa_recovery_code_sets', {
  id: uuid('id').primaryKey(),
  factorId: uuid('factor_id')
    .notNull()
    .unique()
    .references(() => mfaFactors.id, { onDelete: 'cascade' }),
  failedVerificationCount: integer('failed_verification_count').notNull().default(0),
  verificationLockedUntil: tz('verification_locked_until'),
  createdAt: created(),
});

/** The set's single-use codes: only a keyed hash of each is stored; used_at marks a spent one. */
export const mfaRecoveryCodes = pgTable(
  'mfa_recovery_codes',
  {
    setId: uuid('set_id')
      .notNull()
      .references(() => mfaRecoveryCodeSets.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: tz('used_at'),
  },
  (t) => [primaryKey({ columns: [t.setId, t.codeHash] })],
);

/**
 * Passkeys: WebAuthn credentials that sign in on their own (a first factor, GoTrue's
 * webauthn_credentials), apart from WebAuthn MFA factors. Only public data: the credential id and
 * public key (base64url), the signature counter and what the authenticator said of itself.
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    credentialId: text('credential_id').notNull(),
    publicKey: text('public_key').notNull(),
    signCount: bigint('sign_count', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    aaguid: text('aaguid'),
    backupEligible: boolean('backup_eligible').notNull().default(false),
    backedUp: boolean('backed_up').notNull().default(false),
    friendlyName: text('friendly_name').notNull().default(''),
    createdAt: created(),
    updatedAt: updated(),
    lastUsedAt: tz('last_used_at'),
  },
  (t) => [
    uniqueIndex('passkeys_credential_id_key').on(t.credentialId),
    index('passkeys_user_idx').on(t.userId),
  ],
);

/**
 * Open passkey ceremonies: a registration (bound to the signed-in user) or a sign-in (no user yet:
 * the authenticator names the account). Single use: consumed by DELETE … RETURNING.
 */
export const passkeyChallenges = pgTable(
  'passkey_challenges',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    challengeType: text('challenge_type').notNull(), // registration | authentication
    challenge: text('challenge').notNull(),
    expiresAt: tz('expires_at').notNull(),
    createdAt: created(),
  },
  (t) => [
    index('passkey_challenges_expires_idx').on(t.expiresAt),
    // Deleting a user cascades here (issue #28: no whole-table read per account deletion).
    index('passkey_challenges_user_idx').on(t.userId),
  ],
);

/** TOTP replay protection: a (factor, time step) pair can be used once. */
export const usedTotpCodes = pgTable(
  'used_totp_codes',
  {
    factorId: uuid('factor_id')
      .notNull()
      .references(() => mfaFactors.id, { onDelete: 'cascade' }),
    timeStep: bigint('time_step', { mode: 'number' }).notNull(),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.factorId, t.timeStep] })],
);

export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  algorithm: text('algorithm').notNull().default('ES256'),
  privateJwk: jsonb('private_jwk').$type<Record<string, unknown>>().notNull(),
  publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
  status: text('status').notNull().default('active'), // active | verify_only | retired
  createdAt: created(),
  retiredAt: tz('retired_at'),
});

/** Server-generated secrets (e.g. the HMAC keys for refresh-token chains and email codes). */
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: created(),
});

export const auditLogEntries = pgTable(
  'audit_log_entries',
  {
    id: uuid('id').primaryKey(),
    action: text('action').notNull(),
    actorId: uuid('actor_id'),
    ipAddress: text('ip_address'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
  },
  (t) => [
    index('audit_log_created_at_idx').on(t.createdAt),
    index('audit_log_actor_idx').on(t.actorId),
    // The audit-log command's --action filter (an operator's command, not an endpoint). On the action
    // alone: B-tree deduplication stores each action once per page with its rows' addresses, ~5 B per
    // row instead of ~34 for (action, created_at) (migration 0014: 170 B less per account). The
    // planner walks audit_log_created_at_idx for a common action and this index for a rare one.
    index('audit_log_action_idx').on(t.action),
    // The account export's "rows about me" (account.repo.ts: actor or payload user_id).
    index('audit_log_payload_user_idx')
      .on(sql`(payload->>'user_id')`)
      .where(sql`(payload->>'user_id') is not null`),
  ],
);

export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').notNull(),
    windowStart: tz('window_start').notNull(),
    count: integer('count').notNull().default(0),
    // Rows at the epoch only (back-off: count = consecutive failures; floors; known networks): the
    // time of the last hit, so one `insert … on conflict … do update` can reserve an attempt atomically.
    lastHitAt: tz('last_hit_at'),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index('rate_limit_window_idx').on(t.windowStart),
    // The sweep of back-off and known-network rows (both at the epoch), each by its last hit: without
    // it the sweep read every such row every time.
    index('rate_limit_epoch_idx')
      .on(sql`split_part(key, ':', 1)`, t.lastHitAt)
      .where(sql`window_start = '1970-01-01 00:00:00+00'`),
  ],
);

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id'),
    kind: text('kind').notNull(), // confirmation | recovery | email_change | ...
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    text: text('text').notNull(),
    status: text('status').notNull().default('pending'), // pending | sending | sent | failed
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: tz('next_attempt_at').notNull().defaultNow(),
    claimedAt: tz('claimed_at'),
    lastError: text('last_error'),
    sentAt: tz('sent_at'),
    createdAt: created(),
    // With the send-email hook on: GoTrue's email_data for the hook (it holds the live code and link
    // token, so it is blanked with the body once the hook has taken it). A notice of an account's
    // deletion also keeps the user JSON under `user` here: there is no row left to read at send time.
    hookEmailData: jsonb('hook_email_data').$type<Record<string, unknown>>(),
  },
  (t) => [
    index('mail_outbox_pending_idx').on(t.nextAttemptAt).where(sql`status in ('pending', 'sending')`),
    index('mail_outbox_to_idx').on(t.toAddress, t.createdAt),
    // The sweep of sent and given-up mail.
    // Erasing an account deletes its mail.
    index('mail_outbox_user_idx').on(t.userId),
    index('mail_outbox_done_idx').on(t.createdAt).where(sql`status in ('sent', 'failed')`),
  ],
);

/**
 * A sign-in at a third-party provider in progress (features/social): created by GET /authorize,
 * consumed once by GET|POST /callback. Only a SHA-256 of the `state` sent to the provider is kept.
 * The PKCE verifier towards the provider is kept as is (the callback needs it): it is worth nothing
 * without the provider's code, which only ever comes to our callback, and the row lives minutes.
 */
export const oauthStates = pgTable(
  'oauth_states',
  {
    id: uuid('id').primaryKey(),
    stateHash: text('state_hash').notNull(),
    provider: text('provider').notNull(),
    redirectTo: text('redirect_to').notNull(),
    providerVerifier: text('provider_verifier').notNull(),
    nonce: text('nonce'),
    // The client's own PKCE challenge (supabase-js flowType 'pkce'); null: the implicit flow.
    codeChallenge: text('code_challenge'),
    codeChallengeMethod: text('code_challenge_method'),
    // linkIdentity: the signed-in user the new identity is linked to.
    linkUserId: uuid('link_user_id').references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: tz('expires_at').notNull(),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('oauth_states_state_hash_key').on(t.stateHash),
    index('oauth_states_expires_idx').on(t.expiresAt),
  ],
);
