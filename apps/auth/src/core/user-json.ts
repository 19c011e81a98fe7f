import type { AudRole, FactorRow, IdentityRow, UserRow } from '../db/users.repo.ts';
import type { Factor, User } from './http/response-schemas.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/** GoTrue's factor object (in a user's `factors`, and the admin API's factor answers). */
export function factorJson(f: FactorRow): Factor {
  const out: Factor = {
    id: f.id,
    friendly_name: f.friendlyName || undefined,
    // Text columns that only ever hold these values (written by features/mfa).
    factor_type: f.factorType as Factor['factor_type'],
    status: f.status as Factor['status'],
    phone: f.phone ?? '',
    last_challenged_at: f.lastChallengedAt ? f.lastChallengedAt.toISOString() : null,
    created_at: iso(f.createdAt),
    updated_at: iso(f.updatedAt),
  };
  if (out.friendly_name === undefined) delete out.friendly_name;
  return out;
}

/** GoTrue's User object: email/phone always strings, null timestamps omitted, factors omitted when empty. */
export function userJson(user: UserRow, ids: IdentityRow[], factors: FactorRow[] = []): User {
  const out: User = {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email ?? '',
    email_confirmed_at: iso(user.emailConfirmedAt),
    phone: user.phone ?? '',
    phone_confirmed_at: iso(user.phoneConfirmedAt),
    confirmation_sent_at: iso(user.confirmationSentAt),
    confirmed_at: iso(user.emailConfirmedAt ?? user.phoneConfirmedAt),
    recovery_sent_at: iso(user.recoverySentAt),
    new_email: user.emailChange ?? undefined,
    email_change_sent_at: iso(user.emailChangeSentAt),
    new_phone: user.phoneChange ?? undefined,
    phone_change_sent_at: iso(user.phoneChangeSentAt),
    invited_at: iso(user.invitedAt),
    last_sign_in_at: iso(user.lastSignInAt),
    banned_until: iso(user.bannedUntil),
    deleted_at: iso(user.deletedAt),
    app_metadata: user.appMetadata,
    user_metadata: user.userMetadata,
    identities: ids.map((i) => ({
      identity_id: i.id,
      id: i.providerId,
      user_id: i.userId,
      identity_data: i.identityData,
      provider: i.provider,
      last_sign_in_at: iso(i.lastSignInAt),
      created_at: iso(i.createdAt),
      updated_at: iso(i.updatedAt),
      email: i.email ?? undefined,
    })),
    created_at: iso(user.createdAt),
    updated_at: iso(user.updatedAt),
    is_anonymous: user.isAnonymous,
  };
  if (factors.length > 0) out.factors = factors.map(factorJson);
  // Absent, not undefined: the object is compared and spread as well as serialized.
  for (const k of Object.keys(out) as (keyof User)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/**
 * The anti-enumeration answer for a sign-up of an already confirmed email (confirmation on): the
 * keys, types and values of a new pending user's answer (userJson of a fresh row), so nothing but
 * `identities: []` tells the two apart; that one is GoTrue's, kept for compatibility (README).
 * `aud` and `role` are what every new row gets (JWT_AUD, JWT_DEFAULT_GROUP_NAME), as GoTrue's fake keeps the role.
 */
export function fakeUserJson(
  id: string,
  email: string,
  data: Record<string, unknown>,
  now: Date,
  who: AudRole,
): User {
  const t = now.toISOString();
  return {
    id,
    aud: who.aud,
    role: who.role,
    email,
    phone: '',
    confirmation_sent_at: t,
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: data,
    identities: [],
    created_at: t,
    updated_at: t,
    is_anonymous: false,
  };
}
