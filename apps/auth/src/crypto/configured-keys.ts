// GoTrue's JWT settings as key material: JWT_KEYS (a JSON array of JWKs, exactly one of them with
// `key_ops` containing "sign") and JWT_SECRET (HS256, GoTrue's legacy shared secret). Parsed once at
// start-up (config.ts) so a broken key refuses the start with a line naming the setting, never the
// key itself.
import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';

/** The signing algorithms GoTrue accepts in JWT_KEYS (auth-js verifies RS256 and ES256 locally). */
export const CONFIGURED_ALGS = ['HS256', 'RS256', 'RS512', 'ES256', 'ES512', 'EdDSA'] as const;
export type ConfiguredAlg = (typeof CONFIGURED_ALGS)[number];

export type ConfiguredKey = {
  /** undefined: an `oct` key (or the secret) without a kid, used for HS256 tokens that name none. */
  kid: string | undefined;
  alg: ConfiguredAlg;
  /** This key signs new tokens (`key_ops` has "sign"); the others only verify. */
  signs: boolean;
  /** Private (or secret) key for signing; undefined for a verify-only public JWK. */
  privateKey: KeyObject | undefined;
  /** What verifies: the public key, or the secret itself for HS256. */
  verifyKey: KeyObject;
  /** The public JWK as the JWKS publishes it; undefined for secrets (never published). */
  publicJwk: Record<string, unknown> | undefined;
};

export class KeyConfigError extends Error {}

function defaultAlg(jwk: Record<string, unknown>): string | undefined {
  if (jwk.kty === 'oct') return 'HS256';
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC') return jwk.crv === 'P-256' ? 'ES256' : jwk.crv === 'P-521' ? 'ES512' : undefined;
  if (jwk.kty === 'OKP') return jwk.crv === 'Ed25519' ? 'EdDSA' : undefined;
  return undefined;
}

const CURVE_OF: Partial<Record<ConfiguredAlg, string>> = { ES256: 'P-256', ES512: 'P-521', EdDSA: 'Ed25519' };
const KTY_OF: Record<ConfiguredAlg, string> = {
  HS256: 'oct',
  RS256: 'RSA',
  RS512: 'RSA',
  ES256: 'EC',
  ES512: 'EC',
  EdDSA: 'OKP',
};

/** One JWK of JWT_KEYS; `where` names it in errors (its kid or index, never its material). */
function parseJwk(raw: unknown, where: string): ConfiguredKey {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new KeyConfigError(`${where} is not a JWK object`);
  const jwk = raw as Record<string, unknown>;
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid === '' || jwk.kid.length > 200))
    throw new KeyConfigError(`${where}: kid must be a non-empty string`);
  const kid = jwk.kid as string | undefined;
  const alg = (jwk.alg ?? defaultAlg(jwk)) as string | undefined;
  if (!alg || !(CONFIGURED_ALGS as readonly string[]).includes(alg))
    throw new KeyConfigError(
      `${where}: alg ${String(alg ?? '(none)').slice(0, 20)} is not supported (${CONFIGURED_ALGS.join(', ')})`,
    );
  const a = alg as ConfiguredAlg;
  if (jwk.kty !== KTY_OF[a]) throw new KeyConfigError(`${where}: alg ${a} needs kty ${KTY_OF[a]}`);
  if (CURVE_OF[a] && jwk.crv !== CURVE_OF[a])
    throw new KeyConfigError(`${where}: alg ${a} needs crv ${CURVE_OF[a]}`);
  const ops = jwk.key_ops;
  if (ops !== undefined && (!Array.isArray(ops) || ops.some((o) => typeof o !== 'string')))
    throw new KeyConfigError(`${where}: key_ops must be an array of strings`);
  const signs = Array.isArray(ops) && ops.includes('sign');
  if (a !== 'HS256' && !kid) throw new KeyConfigError(`${where}: an asymmetric key needs a kid`);
  try {
    if (a === 'HS256') {
      if (typeof jwk.k !== 'string' || jwk.k.length === 0)
        throw new KeyConfigError(`${where}: oct key without k`);
      const secret = createSecretKey(Buffer.from(jwk.k, 'base64url'));
      // 256 bits at least (RFC 7518 §3.2): a shorter HMAC key is guessable offline from one token.
      if ((secret.symmetricKeySize ?? 0) < 32)
        throw new KeyConfigError(`${where}: an HS256 key needs at least 32 bytes`);
      return { kid, alg: a, signs, privateKey: secret, verifyKey: secret, publicJwk: undefined };
    }
    const hasPrivate = typeof jwk.d === 'string';
    if (signs && !hasPrivate)
      throw new KeyConfigError(`${where}: the signing key needs its private part (d)`);
    const privateKey = hasPrivate ? createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }) : undefined;
    const publicKey = privateKey
      ? createPublicKey(privateKey)
      : createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    if (a.startsWith('RS') && (publicKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw new KeyConfigError(`${where}: RSA keys need at least 2048 bits`);
    const exported = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    // As GoTrue publishes them: the public part, `use: sig`, `key_ops: [verify]`.
    const publicJwk = { ...exported, kid, alg: a, use: 'sig', key_ops: ['verify'] };
    return { kid, alg: a, signs, privateKey, verifyKey: publicKey, publicJwk };
  } catch (err) {
    if (err instanceof KeyConfigError) throw err;
    throw new KeyConfigError(`${where}: not a valid ${a} key`);
  }
}

/**
 * JWT_KEYS as GoTrue reads it: a JSON array of JWKs, exactly one with `key_ops` containing "sign"
 * (zero or several is refused, as GoTrue does), the others verify-only. Unique kids.
 */
export function parseJwtKeys(value: string): ConfiguredKey[] {
  let list: unknown;
  try {
    list = JSON.parse(value);
  } catch {
    throw new KeyConfigError('JWT_KEYS: not JSON (a JSON array of JWKs)');
  }
  if (!Array.isArray(list) || list.length === 0)
    throw new KeyConfigError('JWT_KEYS: must be a non-empty JSON array of JWKs');
  if (list.length > 20) throw new KeyConfigError('JWT_KEYS: at most 20 keys');
  const keys = list.map((k, i) => {
    const kid =
      k && typeof k === 'object' && typeof (k as { kid?: unknown }).kid === 'string'
        ? (k as { kid: string }).kid
        : undefined;
    return parseJwk(k, `JWT_KEYS[${i}]${kid ? ` (kid ${kid.slice(0, 60)})` : ''}`);
  });
  const signers = keys.filter((k) => k.signs).length;
  if (signers === 0)
    throw new KeyConfigError('JWT_KEYS: no signing key (one key needs key_ops ["sign", "verify"])');
  if (signers > 1)
    throw new KeyConfigError('JWT_KEYS: multiple signing keys, only one may have "sign" in key_ops');
  const kids = keys.map((k) => k.kid ?? '');
  if (new Set(kids).size !== kids.length) throw new KeyConfigError('JWT_KEYS: two keys share a kid');
  return keys;
}

/** JWT_SECRET as GoTrue reads it: the raw string's bytes are the HS256 key (kid JWT_KEY_ID, if set). */
export function secretKey(secret: string, kid: string | undefined, signs: boolean): ConfiguredKey {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return { kid, alg: 'HS256', signs, privateKey: key, verifyKey: key, publicJwk: undefined };
}
