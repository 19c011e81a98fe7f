import { randomUUID } from 'node:crypto';
import type { DbOrTx } from './client.ts';
import { auditLogEntries } from './schema.ts';

export type AuditAction =
  | 'user_signedup'
  | 'user_repeated_signup'
  | 'user_confirmation_requested'
  | 'user_recovery_requested'
  | 'user_updated_password'
  | 'user_modified'
  | 'login'
  | 'login_failed'
  | 'logout'
  | 'token_refreshed'
  | 'token_revoked'
  | 'user_invited'
  | 'email_changed'
  | 'factor_enrolled'
  | 'factor_verified'
  | 'factor_verification_failed'
  | 'factor_unenrolled'
  | 'user_deleted'
  | 'admin_link_generated'
  | 'factor_deleted'
  | 'passkey_created'
  | 'passkey_updated'
  | 'passkey_deleted'
  | 'users_imported'
  /** A phone code left for the visitor: payload names the channel and provider that carried it. */
  | 'otp_delivered';

/** Written in the same transaction as the change it records. Never holds secrets. */
export async function audit(
  db: DbOrTx,
  action: AuditAction,
  actorId: string | null,
  ip: string | null,
  payload: Record<string, unknown> = {},
): Promise<void> {
  await db.insert(auditLogEntries).values({ id: randomUUID(), action, actorId, ipAddress: ip, payload });
}
