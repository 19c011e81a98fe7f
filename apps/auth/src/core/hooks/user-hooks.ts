// before_user_created and after_user_created: the first sees the account about to be created (its
// id, address and metadata, as GoTrue's User JSON) and may refuse it with
// `{"error": {"http_code": 4xx, "message": "…"}}`; the second is told once it exists. Both run outside
// any transaction (GoTrue's rule): a slow hook holds no connection, nor PGlite's lock.

import type { AudRole } from '../../db/users.repo.ts';
import type { Deps } from '../deps.ts';
import type { User } from '../http/response-schemas.ts';
import { runHook } from './hooks.ts';

type HookDeps = Pick<Deps, 'config' | 'db' | 'logger' | 'clock'>;

/**
 * The User JSON of an account not yet written, as GoTrue hands it to before_user_created; `aud` and
 * `role` are the ones it will be created with (newUserAudRole: JWT_AUD, JWT_DEFAULT_GROUP_NAME).
 */
export function candidateUser(p: {
  id: string;
  audRole: AudRole;
  provider: 'email' | 'phone' | 'anonymous';
  email?: string | undefined;
  phone?: string | undefined;
  data: Record<string, unknown>;
  now: Date;
}): User {
  const t = p.now.toISOString();
  return {
    id: p.id,
    aud: p.audRole.aud,
    role: p.audRole.role,
    email: p.email ?? '',
    phone: p.phone ?? '',
    app_metadata: p.provider === 'anonymous' ? {} : { provider: p.provider, providers: [p.provider] },
    user_metadata: p.data,
    identities: [],
    created_at: t,
    updated_at: t,
    is_anonymous: p.provider === 'anonymous',
  };
}

export async function beforeUserCreated(deps: HookDeps, user: User, ip: string): Promise<void> {
  if (!deps.config.hooks.BEFORE_USER_CREATED) return;
  await runHook(deps, 'BEFORE_USER_CREATED', { user }, ip);
}

export async function afterUserCreated(deps: HookDeps, user: User, ip: string): Promise<void> {
  if (!deps.config.hooks.AFTER_USER_CREATED) return;
  await runHook(deps, 'AFTER_USER_CREATED', { user }, ip);
}
