// The WebAuthn relying party, shared by WebAuthn MFA factors (features/mfa) and passkeys
// (features/passkeys): WEBAUTHN_RP_ID / WEBAUTHN_RP_ORIGINS, by default SITE_URL's hostname and
// origin. What a client sends as rpId/rpOrigins is ignored (GoTrue does the same: a page cannot
// pick its own RP).
import type { Config } from '../config.ts';

export function relyingParty(config: Config): { id: string; origins: string[]; name: string } {
  const site = new URL(config.SITE_URL);
  return {
    id: config.mfa.rpId ?? site.hostname,
    origins: config.mfa.rpOrigins.length > 0 ? config.mfa.rpOrigins : [site.origin],
    name: config.mfa.rpName,
  };
}
