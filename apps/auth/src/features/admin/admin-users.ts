// The admin API's user management (GoTrue's /admin/users): plain functions over the database, used
// by the HTTP endpoints (admin.routes.ts). Every change is written together with its audit row,
// which names the admin caller (service key or admin JWT).
import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import { type AdminCaller, adminActor } from '../../core/http/guards.ts';
import type { User } from '../../core/http/response-schemas.ts';
import { assertPasswordAcceptable, passwordPolicyOf } from '../../core/password-policy.ts';
import { parsePhone } from '../../core/phone.ts';
import { userJson } from '../../core/user-json.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import { type AuditAction, audit } from '../../db/audit.repo.ts';
import { type DbOrTx, errorChain, isUniqueViolation } from '../../db/client.ts';
import {
  deleteUserById,
  findUserByEmail,
  findUserById,
  findUserByPhone,
  insertUser,
  listUsersPage,
  loadRelationsOfUsers,
  loadUserRelations,
  lockUserById,
  setIdentityAddress,
  softDeleteUser,
  type UserRow,
  updateUser,
} from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { parseBanDuration, parsePasswordHash } from './admin-input.ts';

/** The admin caller and the request, for audit rows. */
export type AdminContext = { caller: AdminCaller; meta: RequestMeta };

/** The bound on metadata GoTrue leaves open: it is copied into every access token (see user-update.ts). */
const MAX_METADATA_JSON = 8 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An audit row for an admin action: actor is the admin JWT's uuid `sub`, when it has one. */
export async function auditAdmin(
  db: DbOrTx,
  ctx: AdminContext,
  action: AuditAction,
  target: { id: string; email?: string | null },
  extra: Record<string, unknown> = {},
): Promise<void> {
  const sub = ctx.caller.via === 'jwt' ? ctx.caller.sub : undefined;
  await audit(db, action, sub && UUID.test(sub) ? sub : null, ctx.meta.ip, {
    ...adminActor(ctx.caller),
    user_id: target.id,
    ...(target.email ? { user_email: target.email } : {}),
    ...extra,
  });
}

/** GoTrue's 404 for an unknown user on the admin API. */
export const userNotFound = () => new AuthError('user_not_found', 'User not found', { status: 404 });

/** Merges metadata: a key set to null is removed (GoTrue's rule); "__proto__" stays plain data. */
function mergeMetadata(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out = new Map(Object.entries(current));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) out.delete(k);
    else out.set(k, v);
  }
  const merged = Object.fromEntries(out);
  if (JSON.stringify(merged).length > MAX_METADATA_JSON)
    throw new AuthError('validation_failed', 'metadata is too large');
  return merged;
}

/** Which unique index a violation hit, as GoTrue's answer for it. */
function duplicateError(err: unknown): AuthError {
  const constraint = errorChain(err)
    .map((e) => e.constraint ?? e.constraint_name)
    .find((c) => typeof c === 'string');
  if (constraint === 'users_phone_key') return new AuthError('phone_exists');
  if (constraint === 'users_pkey')
    return new AuthError('user_already_exists', 'A user with this ID already exists');
  return new AuthError('email_exists');
}

async function withDuplicatesMapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateError(err);
    throw err;
  }
}

export async function adminUserJson(db: DbOrTx, user: UserRow): Promise<User> {
  const relations = await loadUserRelations(db, user.id);
  return userJson(user, relations.identities, relations.factors);
}

/** A user named by id or by email (the CLI's argument); GoTrue's 404 when there is none. */
/** A user named by id, email address or (no "@") phone number. */
export async function resolveUserRef(deps: Deps, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref.toLowerCase();
  const user = ref.includes('@')
    ? await findUserByEmail(deps.db, parseEmail(ref))
    : await findUserByPhone(deps.db, parsePhone(ref));
  if (!user) throw userNotFound();
  return user.id;
}

export async function getUser(deps: Deps, id: string): Promise<User> {
  const user = await findUserById(deps.db, id);
  if (!user) throw userNotFound();
  return adminUserJson(deps.db, user);
}

/** A page of users and the paging facts the endpoint turns into X-Total-Count and Link. */
export async function listUsers(
  deps: Deps,
  p: { page: number; perPage: number; emailContains?: string | undefined },
): Promise<{ users: User[]; total: number; lastPage: number }> {
  const { rows, total } = await listUsersPage(deps.db, {
    offset: (p.page - 1) * p.perPage,
    limit: p.perPage,
    emailContains: p.emailContains,
  });
  // Two statements for the whole page's identities and factors, not two per user.
  const relations = await loadRelationsOfUsers(
    deps.db,
    rows.map((u) => u.id),
  );
  const users = rows.map((u) => {
    const r = relations.get(u.id);
    return userJson(u, r?.identities ?? [], r?.factors ?? []);
  });
  return { users, total, lastPage: Math.ceil(total / p.perPage) };
}

export type AdminUserAttributes = {
  email?: string | undefined;
  phone?: string | undefined;
  password?: string | undefined;
  passwordHash?: string | undefined;
  emailConfirm?: boolean | undefined;
  phoneConfirm?: boolean | undefined;
  userMetadata?: Record<string, unknown> | undefined;
  appMetadata?: Record<string, unknown> | undefined;
  role?: string | undefined;
  banDuration?: string | undefined;
};

/** The new password's stored form: a checked and hashed password, or an imported hash as given. */
async function passwordColumn(
  deps: Deps,
  a: AdminUserAttributes,
  email: string | undefined,
): Promise<string | undefined> {
  if (a.password !== undefined && a.passwordHash !== undefined)
    throw new AuthError('validation_failed', 'Only a password or a password hash should be provided');
  if (a.passwordHash !== undefined) return parsePasswordHash(a.passwordHash);
  if (a.password === undefined) return undefined;
  assertPasswordAcceptable(a.password, passwordPolicyOf(deps.config), { email });
  return hashPassword(a.password);
}

/** POST /admin/users. */
export async function createUser(
  deps: Deps,
  ctx: AdminContext,
  a: AdminUserAttributes & { id?: string | undefined },
): Promise<User> {
  const email = a.email ? parseEmail(a.email) : undefined;
  const phone = a.phone ? parsePhone(a.phone) : undefined;
  if (!email && !phone)
    throw new AuthError('validation_failed', 'Cannot create a user without either an email or phone');
  const ban = a.banDuration !== undefined ? parseBanDuration(a.banDuration) : null;
  const passwordHash = await passwordColumn(deps, a, email);
  const now = deps.clock();
  const provider = email ? 'email' : 'phone';
  const providers = [...(email ? ['email'] : []), ...(phone ? ['phone'] : [])];
  // The caller's app_metadata cannot take the provider keys away (GoTrue sets them after merging).
  const appMetadata = { ...mergeMetadata({}, a.appMetadata ?? {}), provider, providers };
  const emailConfirmedAt = email && a.emailConfirm ? now : null;
  const userMetadata = mergeMetadata(
    {},
    {
      ...a.userMetadata,
      ...(emailConfirmedAt ? { email_verified: true } : {}),
    },
  );
  return withDuplicatesMapped(() =>
    deps.db.transaction(async (tx) => {
      // Checked first for a precise answer; the unique indexes still decide a race.
      if (a.id && (await findUserById(tx, a.id)))
        throw new AuthError('user_already_exists', 'A user with this ID already exists');
      if (email && (await findUserByEmail(tx, email))) throw new AuthError('email_exists');
      if (phone && (await findUserByPhone(tx, phone))) throw new AuthError('phone_exists');
      const user = await insertUser(tx, {
        id: a.id ?? randomUUID(),
        email: email ?? null,
        phone: phone ?? null,
        passwordHash: passwordHash ?? null,
        aud: deps.config.JWT_AUD,
        role: a.role || deps.config.JWT_DEFAULT_GROUP_NAME,
        emailConfirmedAt,
        phoneConfirmedAt: phone && a.phoneConfirm ? now : null,
        invitedAt: null,
        confirmationSentAt: null,
        bannedUntil: ban === null ? null : new Date(now.getTime() + ban),
        appMetadata,
        userMetadata,
        now,
      });
      await auditAdmin(tx, ctx, 'user_signedup', user, { provider, by_admin: true });
      return adminUserJson(tx, user);
    }),
  );
}

/** PUT /admin/users/{id}: GoTrue merges metadata (null deletes a key) and sets the rest as given. */
export async function updateUserById(
  deps: Deps,
  ctx: AdminContext,
  id: string,
  a: AdminUserAttributes,
): Promise<User> {
  const email = a.email ? parseEmail(a.email) : undefined;
  const phone = a.phone ? parsePhone(a.phone) : undefined;
  const ban = a.banDuration !== undefined ? parseBanDuration(a.banDuration) : undefined;
  const passwordHash = await passwordColumn(deps, a, email);
  const now = deps.clock();
  return withDuplicatesMapped(() =>
    deps.db.transaction(async (tx) => {
      // Locked: two admins updating one user apply their merges one after the other.
      const user = await lockUserById(tx, id);
      if (!user || user.deletedAt) throw userNotFound();
      const patch: Partial<UserRow> = { updatedAt: now };
      const changed: string[] = [];
      if (email !== undefined && email !== user.email) {
        const other = await findUserByEmail(tx, email);
        if (other && other.id !== id) throw new AuthError('email_exists');
        patch.email = email;
        patch.emailChange = null;
        patch.emailChangeSentAt = null;
        patch.emailChangeConfirmStatus = 0;
        changed.push('email');
      }
      if (phone !== undefined && phone !== user.phone) {
        const other = await findUserByPhone(tx, phone);
        if (other && other.id !== id) throw new AuthError('phone_exists');
        patch.phone = phone;
        changed.push('phone');
      }
      // As in GoTrue, `true` confirms and `false` changes nothing (it never unconfirms an address).
      if (a.emailConfirm === true && !user.emailConfirmedAt) patch.emailConfirmedAt = now;
      if (a.phoneConfirm === true && !user.phoneConfirmedAt) patch.phoneConfirmedAt = now;
      if (passwordHash !== undefined) {
        patch.encryptedPassword = passwordHash;
        changed.push('password');
      }
      if (a.role) patch.role = a.role;
      let userMetadata = a.userMetadata ? mergeMetadata(user.userMetadata, a.userMetadata) : undefined;
      if (patch.emailConfirmedAt)
        userMetadata = { ...(userMetadata ?? user.userMetadata), email_verified: true };
      if (userMetadata) patch.userMetadata = userMetadata;
      if (a.appMetadata) patch.appMetadata = mergeMetadata(user.appMetadata, a.appMetadata);
      if (ban !== undefined) {
        patch.bannedUntil = ban === null ? null : new Date(now.getTime() + ban);
        changed.push(ban === null ? 'unbanned' : 'banned');
      }
      const updated = await updateUser(tx, id, patch);
      const emailVerified = updated.emailConfirmedAt !== null;
      if (patch.email || patch.emailConfirmedAt !== undefined)
        if (updated.email) await setIdentityAddress(tx, id, 'email', updated.email, emailVerified, now);
      if (patch.phone || patch.phoneConfirmedAt !== undefined)
        if (updated.phone)
          await setIdentityAddress(tx, id, 'phone', updated.phone, updated.phoneConfirmedAt !== null, now);
      await auditAdmin(tx, ctx, 'user_modified', updated, { fields: changed });
      return adminUserJson(tx, updated);
    }),
  );
}

/** DELETE /admin/users/{id}: the row goes, or with `soft` it stays as GoTrue's soft-deleted husk. */
export async function deleteUser(deps: Deps, ctx: AdminContext, id: string, soft: boolean): Promise<void> {
  const now = deps.clock();
  await deps.db.transaction(async (tx) => {
    const user = await lockUserById(tx, id);
    if (!user) throw userNotFound();
    if (soft) {
      if (user.deletedAt) throw userNotFound();
      await softDeleteUser(tx, id, now);
    } else if (!(await deleteUserById(tx, id))) throw userNotFound();
    await auditAdmin(tx, ctx, 'user_deleted', user, { soft });
  });
}
