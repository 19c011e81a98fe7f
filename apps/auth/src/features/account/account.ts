// The account page's own endpoints (extensions: GoTrue has no such endpoints, and lets only the
// admin API delete a user): the list of the user's sessions, a copy of everything the service holds
// about the account, and the deletion of the account by its owner.
import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { User } from '../../core/http/response-schemas.ts';
import { queueSecurityNotice } from '../../core/mail/notices.ts';
import { enforceOtpIpLimit, rateLimitKeysNaming } from '../../core/rate-limit.ts';
import { userJson } from '../../core/user-json.ts';
import { eraseAccount, listUserAuditEvents, listUserSessions } from '../../db/account.repo.ts';
import { audit } from '../../db/audit.repo.ts';
import type { DbOrTx } from '../../db/client.ts';
import { listPasskeys } from '../../db/passkeys.repo.ts';
import { deleteCounters } from '../../db/rate-limits.repo.ts';
import type { SessionRow } from '../../db/sessions.repo.ts';
import { loadUserRelations, lockUserById, type UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { hasVerifiedFactor } from '../mfa/index.ts';
import { checkNonceGiven, consumeNonce } from '../user/index.ts';

/** How many audit events an export carries at most (newest first). */
export const EXPORT_AUDIT_LIMIT = 10_000;

export type SessionJson = {
  id: string;
  aal: string;
  user_agent: string | null;
  created_at: string;
  /** The last refresh, or the sign-in when the session was never refreshed. */
  last_active_at: string;
  /** The session of the access token that asked. */
  current: boolean;
};

function sessionJson(s: SessionRow, currentId: string): SessionJson {
  return {
    id: s.id,
    aal: s.aal,
    user_agent: s.userAgent,
    created_at: s.createdAt.toISOString(),
    last_active_at: (s.refreshedAt ?? s.createdAt).toISOString(),
    current: s.id === currentId,
  };
}

/** GET /account/sessions: the user's sessions, most recently active first. */
export async function listSessions(deps: Deps, user: UserRow, current: SessionRow): Promise<SessionJson[]> {
  const rows = await listUserSessions(deps.db, user.id);
  return rows.map((s) => sessionJson(s, current.id));
}

export type AccountExport = {
  format: 'namaa-account-export';
  version: 1;
  exported_at: string;
  /** GoTrue's user object: profile, metadata, identities and factors (never a factor's secret). */
  user: User;
  /** The privacy notice the user accepted at sign-up and when (PDPL consent); nulls: none recorded. */
  privacy_notice: { version: string | null; accepted_at: string | null };
  sessions: (SessionJson & { ip: string | null })[];
  /** Passkeys that sign in on their own (features/passkeys), without their public keys. */
  passkeys: { id: string; friendly_name: string; created_at: string; last_used_at: string | null }[];
  audit_events: {
    id: string;
    action: string;
    created_at: string;
    ip_address: string | null;
    payload: Record<string, unknown>;
  }[];
};

/**
 * GET /account/export (and the admin CLI's `users export`): everything the service holds about the
 * account, secrets excepted. `currentSessionId` marks the session that asked (none from the CLI).
 */
export async function exportAccount(
  deps: Deps,
  user: UserRow,
  currentSessionId?: string,
): Promise<AccountExport> {
  const [rel, sessions, passkeys, events] = await Promise.all([
    loadUserRelations(deps.db, user.id),
    listUserSessions(deps.db, user.id),
    listPasskeys(deps.db, user.id),
    listUserAuditEvents(deps.db, user.id, EXPORT_AUDIT_LIMIT),
  ]);
  return {
    format: 'namaa-account-export',
    version: 1,
    exported_at: deps.clock().toISOString(),
    user: userJson(user, rel.identities, rel.factors),
    privacy_notice: {
      version: user.privacyNoticeVersion,
      accepted_at: user.privacyNoticeAcceptedAt?.toISOString() ?? null,
    },
    sessions: sessions.map((s) => ({ ...sessionJson(s, currentSessionId ?? ''), ip: s.ip })),
    passkeys: passkeys.map((p) => ({
      id: p.id,
      friendly_name: p.friendlyName,
      created_at: p.createdAt.toISOString(),
      last_used_at: p.lastUsedAt ? p.lastUsedAt.toISOString() : null,
    })),
    audit_events: events.map((e) => ({
      id: e.id,
      action: e.action,
      created_at: e.createdAt.toISOString(),
      ip_address: e.ipAddress,
      payload: e.payload,
    })),
  };
}

/**
 * The erasure of both paths below: the user and everything hanging off it (db/account.repo.ts), and
 * the rate-limit rows that name its addresses and numbers, pending changes included (a known
 * network, a back-off streak, mail and code windows), which would otherwise outlive the account by
 * up to 32 days.
 */
async function eraseWithCounters(tx: DbOrTx, user: UserRow): Promise<boolean> {
  if (!(await eraseAccount(tx, user.id))) return false;
  const present = (values: Array<string | null | undefined>) => values.filter((v): v is string => !!v);
  await deleteCounters(
    tx,
    rateLimitKeysNaming({
      emails: present([user.email, user.emailChange]),
      phones: present([user.phone, user.phoneChange]),
    }),
  );
  return true;
}

/**
 * DELETE /account: the owner deletes the account. It takes the reauthentication nonce (GET
 * /reauthenticate: mailed, or texted to a phone-only account) whatever the session's age, and an
 * aal2 session when a verified factor exists.
 * One transaction spends the nonce, erases the user with everything hanging off it (every device is
 * signed out: its sessions and refresh tokens are gone), keeps the audit trail without personal
 * data, records the deletion and queues the confirmation mail (sent after commit; none without an
 * email address).
 */
export async function deleteAccount(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  nonce: string | undefined,
  meta: RequestMeta,
): Promise<void> {
  const { factors } = await loadUserRelations(deps.db, user.id);
  if (session.aal !== 'aal2' && hasVerifiedFactor(factors)) throw new AuthError('insufficient_aal');
  await enforceOtpIpLimit(deps, meta.ip);
  await checkNonceGiven(deps, user, nonce);
  const email = user.email;
  await deps.db.transaction(async (tx) => {
    // The row lock orders two deletions of one account: the second finds no user.
    const locked = await lockUserById(tx, user.id);
    if (!locked) throw new AuthError('user_not_found');
    await consumeNonce(deps, tx, locked, nonce ?? '');
    if (!(await eraseWithCounters(tx, locked))) throw new AuthError('user_not_found');
    // No IP: the row outlives the account and must not identify its owner.
    await audit(tx, 'user_deleted', user.id, null, { by: 'self' });
    // Not tied to the (deleted) user id: nothing else refers to this row, it is sent and swept. A
    // phone-only account has no address to confirm to (queueSecurityNotice skips it; SMS carries codes only).
    await queueSecurityNotice(deps, tx, { ...locked, email }, 'account_deleted', { accountGone: true });
  });
  if (email) deps.mail.kick();
}

/**
 * The operator's deletion of an account on the owner's request (PDPL; the admin CLI's `users erase`):
 * the same erasure as DELETE /account (everything hanging off the user goes, the audit trail stays
 * without personal data), recorded as done by `by`, and the owner is mailed the same confirmation.
 */
export async function eraseAccountFor(deps: Deps, userId: string, by: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const locked = await lockUserById(tx, userId);
    if (!locked) throw new AuthError('user_not_found');
    if (!(await eraseWithCounters(tx, locked))) throw new AuthError('user_not_found');
    await audit(tx, 'user_deleted', userId, null, { by });
    await queueSecurityNotice(deps, tx, locked, 'account_deleted', { accountGone: true });
  });
  deps.mail.kick();
}
