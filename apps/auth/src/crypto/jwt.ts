import { createPrivateKey, type JsonWebKey, randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import {
  type CryptoKey,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
} from 'jose';

export type StoredKey = {
  kid: string;
  algorithm: string;
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  status: string; // standby (published, not signing yet) | active | verify_only | retired
  createdAt?: Date;
};

/**
 * Access tokens are signed synchronously with node:crypto through fast-jwt (jose verifies them).
 * jose signs through WebCrypto, which queues every signature on the libuv pool and back: measured on
 * the refresh hot path (bench/auth-throughput.ts, --cpu-prof) that hop cost ~120 µs of event-loop
 * time per token, behind the argon2 jobs under sign-in load; a direct ES256 signature costs ~45 µs.
 * iat/exp come from the caller (the service clock): fast-jwt keeps a payload's own iat and exp
 * (and would DROP iat with its `noTimestamp` option, so that is left off).
 */
function es256Signer(k: StoredKey): (payload: Record<string, unknown>) => string {
  const pem = createPrivateKey({ key: k.privateJwk as JsonWebKey, format: 'jwk' }).export({
    type: 'pkcs8',
    format: 'pem',
  });
  const sign = createSigner({ key: pem.toString(), algorithm: 'ES256', kid: k.kid });
  return (payload) => withLowS(sign(payload));
}

/**
 * ECDSA signatures are malleable: (r, s) and (r, n − s) both verify, so anyone holding one token can
 * mint a second, byte-different one for the same claims. WebCrypto (what jose verifies with) and
 * OpenSSL accept both and OpenSSL signs either, about half the time the "high" one. Tokens are
 * therefore normalised to low S when signed and only low S is accepted (as in Bitcoin's BIP 62 and
 * Ethereum's EIP-2): one canonical byte string per signature, so a token cannot be re-encoded to slip
 * past anything keyed on its exact text.
 */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const P256_HALF_ORDER = P256_ORDER >> 1n;

/** S of a raw (IEEE P1363, r‖s) ES256 signature. */
function signatureS(signature: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
}

/** A JWS whose ES256 signature is in low-S form (n − S replaces a high S; the signature stays valid). */
export function withLowS(token: string): string {
  const dot = token.lastIndexOf('.');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  if (signature.length !== 64) return token;
  const sValue = signatureS(signature);
  if (sValue <= P256_HALF_ORDER) return token;
  Buffer.from((P256_ORDER - sValue).toString(16).padStart(64, '0'), 'hex').copy(signature, 32);
  return `${token.slice(0, dot + 1)}${signature.toString('base64url')}`;
}

/** Whether a JWS's ES256 signature is 64 bytes with 0 < S ≤ n/2 (the only form we sign or accept). */
export function hasCanonicalSignature(token: string): boolean {
  const signature = Buffer.from(token.slice(token.lastIndexOf('.') + 1), 'base64url');
  if (signature.length !== 64) return false;
  const sValue = signatureS(signature);
  return sValue > 0n && sValue <= P256_HALF_ORDER;
}

/** Our kids are uuids; anything else (paths, URLs, SQL, huge strings) is refused before any lookup. */
const KID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function generateSigningKey(): Promise<StoredKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  return {
    kid,
    algorithm: 'ES256',
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' },
    status: 'active',
  };
}

export type AccessTokenClaims = JWTPayload & {
  sub: string;
  session_id: string;
  role: string;
  aal: string;
  amr: Array<{ method: string; timestamp: number }>;
  email: string;
  phone: string;
  is_anonymous: boolean;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
};

/**
 * Holds the imported key objects so signing and verifying never re-import a JWK on the hot path.
 * `reload` re-reads the keys (rotation by another process or command): it is called at start and,
 * rate-limited, when a token names a kid we have not seen.
 */
export class KeyStore {
  private signer: { kid: string; sign: (payload: Record<string, unknown>) => string } | undefined;
  private verifiers = new Map<string, CryptoKey>();
  private published: JWK[] = [];
  private lastReload = 0;
  private readonly load: () => Promise<StoredKey[]>;

  constructor(load: () => Promise<StoredKey[]>) {
    this.load = load;
  }

  async reload(): Promise<void> {
    // Newest first: after a rotation the newest active key signs (another instance may briefly
    // still list two active keys while it has not reloaded; the newest wins everywhere).
    const keys = [...(await this.load())].sort(
      (a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0),
    );
    const verifiers = new Map<string, CryptoKey>();
    const published: JWK[] = [];
    let signer: KeyStore['signer'];
    // Every key but a retired one is published and accepted, a standby key included (it is
    // published before it signs, so verifiers caching the key set know it in time); the signing key
    // is listed first, for verifiers that take the first key instead of matching the kid.
    for (const k of keys) {
      if (k.status === 'retired') continue;
      verifiers.set(k.kid, (await importJWK(k.publicJwk as JWK, k.algorithm)) as CryptoKey);
      const { d: _d, ...pub } = k.publicJwk as JWK;
      const entry: JWK = { ...pub, kid: k.kid, alg: k.algorithm, use: 'sig', key_ops: ['verify'] };
      if (k.status === 'active' && !signer) {
        signer = { kid: k.kid, sign: es256Signer(k) };
        published.unshift(entry);
      } else published.push(entry);
    }
    if (!signer) throw new Error('no active signing key');
    this.signer = signer;
    this.verifiers = verifiers;
    this.published = published;
    this.lastReload = Date.now();
  }

  /** The kid new tokens are signed with. */
  signingKid(): string | undefined {
    return this.signer?.kid;
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.published };
  }

  sign(claims: AccessTokenClaims, issuedAt: number, expiresAt: number, issuer: string): string {
    const signer = this.signer;
    if (!signer) throw new Error('KeyStore not loaded');
    return signer.sign({ ...claims, iss: issuer, aud: 'authenticated', iat: issuedAt, exp: expiresAt });
  }

  /**
   * Verifies signature, expiry and audience. Throws on any failure. Hardening: the algorithm is
   * pinned to ES256 before any key is chosen (no `none`, no HS256-with-the-public-key confusion), the
   * kid must be one of our uuids (no path/URL kids), the key comes only from our own store
   * (embedded `jwk`/`jku`/`x5u` headers are never followed), and the signature must be low-S.
   */
  async verify(token: string): Promise<AccessTokenClaims> {
    const payload = await this.verifySignature(token, {
      audience: 'authenticated',
      requiredClaims: ['exp', 'sub'],
    });
    if (typeof payload.sub !== 'string') throw new Error('invalid claim: missing sub claim');
    return payload as AccessTokenClaims;
  }

  /**
   * An admin credential (the admin API): the same key and signature checks, but like GoTrue no
   * `aud`, `sub` or `exp` is required (service-role JWTs carry neither aud nor sub); an `exp` that
   * is present is still enforced.
   */
  async verifyAdmin(token: string): Promise<JWTPayload & { role?: unknown; session_id?: unknown }> {
    return this.verifySignature(token, {});
  }

  private async verifySignature(
    token: string,
    claims: { audience?: string; requiredClaims?: string[] },
  ): Promise<JWTPayload> {
    if (token.length > 16_384) throw new Error('token too large');
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'ES256')
      throw new Error(`signing method ${String(header.alg).slice(0, 16)} is invalid`);
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    if (!kid) throw new Error('missing kid');
    if (!KID_PATTERN.test(kid)) throw new Error('unrecognized JWT kid');
    let key = this.verifiers.get(kid);
    if (!key && Date.now() - this.lastReload > 10_000) {
      await this.reload();
      key = this.verifiers.get(kid);
    }
    if (!key) throw new Error('unrecognized JWT kid');
    if (!hasCanonicalSignature(token)) throw new Error('non-canonical (high-S) signature');
    const { payload } = await jwtVerify(token, key, { algorithms: ['ES256'], ...claims });
    return payload;
  }
}
