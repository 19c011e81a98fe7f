import type { Config } from '../config.ts';
import type { AudRole } from '../db/users.repo.ts';

/** What every new user's `aud` and `role` are (GoTrue's JWT_AUD and JWT_DEFAULT_GROUP_NAME). */
export function newUserAudRole(config: Pick<Config, 'JWT_AUD' | 'JWT_DEFAULT_GROUP_NAME'>): AudRole {
  return { aud: config.JWT_AUD, role: config.JWT_DEFAULT_GROUP_NAME };
}
