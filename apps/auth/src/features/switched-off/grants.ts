// The /token grants of features we do not offer (web3, OpenID Connect id_token): GoTrue's answers
// with every web3 chain and every OIDC provider switched off, check for check, so a client sees the
// same errors as against a GoTrue configured that way, never unsupported_grant_type.
import { AuthError } from '../../errors.ts';

/** POST /token?grant_type=web3: GoTrue checks the switch before it reads the body. */
export function web3Grant(): never {
  throw new AuthError('web3_provider_disabled');
}

const invalidRequest = (description: string) =>
  new AuthError('oauth_invalid_request', description, { oauth: 'invalid request' });

// GoTrue's built-in OIDC providers and the issuer each stands for (internal/api/provider/*.go).
const APPLE_ISSUERS = ['https://appleid.apple.com', 'https://account.apple.com'];
const AZURE_ISSUER = /^https:\/\/login[.]microsoftonline[.]com\/([^/]+)\/v2[.]0\/?$/;
const FIXED_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  facebook: 'https://www.facebook.com',
  kakao: 'https://kauth.kakao.com',
  vercel_marketplace: 'https://marketplace.vercel.com',
  snapchat: 'https://accounts.snapchat.com/accounts/oauth2/token',
};

/** The unverified `iss` of an ID token (GoTrue reads it to pick Apple's or Azure's issuer). */
function issuerOf(idToken: string): string | undefined {
  const parts = idToken.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as unknown;
    if (payload === null || typeof payload !== 'object') return undefined;
    const iss = (payload as { iss?: unknown }).iss;
    return typeof iss === 'string' ? iss : '';
  } catch {
    return undefined;
  }
}

const disabled = (issuer: string) =>
  new AuthError('provider_disabled', `Provider (issuer ${JSON.stringify(issuer)}) is not enabled`);

export type IdTokenGrantInput = {
  id_token?: string | undefined;
  provider?: string | undefined;
  client_id?: string | undefined;
  issuer?: string | undefined;
  link_identity?: boolean | undefined;
};

/**
 * POST /token?grant_type=id_token (`signInWithIdToken`): GoTrue's IdTokenGrant and getProvider with
 * no provider enabled. The token is never trusted: only its `iss` is read, as GoTrue does, to say
 * which provider it would have needed.
 */
export function idTokenGrant(p: IdTokenGrantInput, hasAuthorization: boolean): never {
  const provider = p.provider ?? '';
  const issuer = p.issuer ?? '';
  if (!p.id_token) throw invalidRequest('id_token required');
  if (provider === '' && (!p.client_id || issuer === ''))
    throw invalidRequest('provider or client_id and issuer required');
  if (p.link_identity && !hasAuthorization)
    throw invalidRequest('Linking requires a valid user access token in Authorization');
  if (provider === 'apple' || APPLE_ISSUERS.includes(issuer)) {
    const detected = issuerOf(p.id_token);
    if (detected === undefined)
      throw new AuthError('validation_failed', 'Unable to detect issuer in ID token for Apple provider');
    if (!APPLE_ISSUERS.includes(detected))
      throw new AuthError('validation_failed', 'Detected ID token issuer is not an Apple ID token issuer');
    if (issuer !== '' && issuer !== detected)
      throw new AuthError('validation_failed', 'Provided issuer does not match ID token issuer');
    throw disabled(detected);
  }
  const fixed = Object.entries(FIXED_ISSUERS).find(([name, iss]) => provider === name || issuer === iss);
  // GoTrue tests Google before Azure, and Azure before the other fixed issuers.
  if (fixed?.[0] === 'google') throw disabled(fixed[1]);
  if (provider === 'azure' || AZURE_ISSUER.test(issuer)) {
    const detected = issuerOf(p.id_token);
    if (detected === undefined)
      throw new AuthError('validation_failed', 'Unable to detect issuer in ID token for Azure provider');
    if (
      !detected.startsWith('https://login.microsoftonline.com/') &&
      !detected.startsWith('https://sts.windows.net/')
    )
      throw new AuthError('validation_failed', 'Detected ID token issuer is not an Azure ID token issuer');
    if (issuer !== '' && issuer !== detected)
      throw new AuthError('validation_failed', 'Provided issuer does not match ID token issuer');
    throw disabled(detected);
  }
  if (fixed?.[0] === 'facebook') throw disabled(fixed[1]);
  // Keycloak has no fixed issuer: its URL is configuration, empty when it is off.
  if (provider === 'keycloak') throw disabled('');
  if (fixed) throw disabled(fixed[1]);
  if (provider.startsWith('custom:'))
    throw new AuthError('validation_failed', 'Custom OAuth providers are disabled');
  throw new AuthError('validation_failed', `Custom OIDC provider ${JSON.stringify(provider)} not allowed`);
}
