// WebAuthn factors through @simplewebauthn/server. The relying party comes from configuration
// (core/webauthn-rp.ts).
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Config } from '../../config.ts';
import { relyingParty } from '../../core/webauthn-rp.ts';
import type { FactorRow, UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

export type StoredCredential = { id: string; publicKey: string; counter: number; transports?: string[] };
export type WebauthnSession = { type: 'create' | 'request'; challenge: string };

function credentialOf(f: FactorRow): StoredCredential | undefined {
  const c = f.webauthnCredential as StoredCredential | null;
  return c && typeof c.id === 'string' && typeof c.publicKey === 'string' ? c : undefined;
}

/** Creation options for an unverified factor, request options for a verified one. */
export async function webauthnOptions(
  config: Config,
  user: UserRow,
  factor: FactorRow,
  others: FactorRow[],
): Promise<{ session: WebauthnSession; publicKey: Record<string, unknown> }> {
  const rp = relyingParty(config);
  if (factor.status !== 'verified') {
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: user.email || user.id,
      userDisplayName: user.email || user.id,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      excludeCredentials: others
        .map(credentialOf)
        .filter((c): c is StoredCredential => c !== undefined)
        .map((c) => ({ id: c.id, ...(c.transports ? { transports: c.transports } : {}) })),
      authenticatorSelection: { residentKey: 'discouraged', userVerification: 'preferred' },
      timeout: config.mfa.challengeExpiry * 1000,
    });
    return {
      session: { type: 'create', challenge: options.challenge },
      publicKey: options as unknown as Record<string, unknown>,
    };
  }
  const credential = credentialOf(factor);
  if (!credential) throw new AuthError('mfa_factor_not_found', 'WebAuthn factor has no credential');
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: [
      { id: credential.id, ...(credential.transports ? { transports: credential.transports as never } : {}) },
    ],
    userVerification: 'preferred',
    timeout: config.mfa.challengeExpiry * 1000,
  });
  return {
    session: { type: 'request', challenge: options.challenge },
    publicKey: options as unknown as Record<string, unknown>,
  };
}

const failed = (detail: string) =>
  new AuthError('mfa_verification_failed', `WebAuthn verification failed: ${detail.slice(0, 160)}`);

/**
 * Verifies the browser's credential response against the stored challenge. Returns the credential
 * to store (registration) or the new signature counter (authentication).
 */
export async function verifyWebauthn(
  config: Config,
  factor: FactorRow,
  session: WebauthnSession,
  response: unknown,
): Promise<{ credential: StoredCredential; aaguid: string | undefined }> {
  if (!response || typeof response !== 'object') throw failed('credential_response is required');
  const rp = relyingParty(config);
  try {
    if (session.type === 'create') {
      const result = await verifyRegistrationResponse({
        response: response as never,
        expectedChallenge: session.challenge,
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
      if (!result.verified || !result.registrationInfo) throw failed('registration not verified');
      const c = result.registrationInfo.credential;
      return {
        credential: {
          id: c.id,
          publicKey: Buffer.from(c.publicKey).toString('base64url'),
          counter: c.counter,
          ...(c.transports ? { transports: c.transports } : {}),
        },
        aaguid: result.registrationInfo.aaguid,
      };
    }
    const stored = credentialOf(factor);
    if (!stored) throw failed('factor has no credential');
    const result = await verifyAuthenticationResponse({
      response: response as never,
      expectedChallenge: session.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: false,
      credential: {
        id: stored.id,
        publicKey: new Uint8Array(Buffer.from(stored.publicKey, 'base64url')),
        counter: stored.counter,
        ...(stored.transports ? { transports: stored.transports as never } : {}),
      },
    });
    if (!result.verified) throw failed('assertion not verified');
    return {
      credential: { ...stored, counter: result.authenticationInfo.newCounter },
      aaguid: factor.webauthnAaguid ?? undefined,
    };
  } catch (err) {
    if (err instanceof AuthError) throw err;
    throw failed((err as Error).message ?? 'invalid response');
  }
}
