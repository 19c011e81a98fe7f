import { createPrivateKey, type JsonWebKey, type KeyObject, randomUUID } from 'node:crypto';
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
  type ProtectedHeaderParameters,
} from 'jose';
import type { ConfiguredKey } from './configured-keys.ts';

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

/** A key a token can be verified with: its algorithm is pinned, whatever the token's header says. */
type Verifier = { alg: string; key: CryptoKey | KeyObject; lowS: boolean };

/**
 * What the operator configured besides the database's ES256 keys (GoTrue's settings): JWT_KEYS and
 * JWT_SECRET (with JWT_KEY_ID, its kid), and JWT_AUD, the audience new tokens carry and incoming
 * user tokens must name.
 */
export type KeyStoreOptions = { configured?: ConfiguredKey[]; audience?: string };

/** A synchronous fast-jwt signer for a configured key (PEM for asymmetric keys, the bytes for HMAC). */
function configuredSigner(k: ConfiguredKey): (payload: Record<string, unknown>) => string {
  const privateKey = k.privateKey as KeyObject;
  const key =
    k.alg === 'HS256' ? privateKey.export() : privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const sign = createSigner({ key, algorithm: k.alg, ...(k.kid ? { kid: k.kid } : {}) });
  return k.alg === 'ES256' ? (payload) => withLowS(sign(payload)) : sign;
}

/**
 * Holds the imported key objects so signing and verifying never re-import a JWK on the hot path.
 * `reload` re-reads the keys (rotation by another process or command): it is called at start and,
 * rate-limited, when a token names a kid we have not seen.
 *
 * Who signs: the JWT_KEYS key whose key_ops has "sign"; else JWT_SECRET (HS256, as GoTrue without
 * keys); else the newest active database key (ES256, `npm run keys:rotate`). Every other key only
 * verifies: the database keys stay valid for the tokens they signed before a switch.
 */
export class KeyStore {
  private signer: { kid: string | undefined; sign: (payload: Record<string, unknown>) => string } | undefined;
  private verifiers = new Map<string, Verifier>();
  private published: JWK[] = [];
  private lastReload = 0;
  private readonly load: () => Promise<StoredKey[]>;
  /** Configured keys by kid, and the one an HS256 token naming no known kid is checked with. */
  private readonly configured = new Map<string, Verifier>();
  private readonly hmacFallback: Verifier | undefined;
  private readonly configuredSigner: KeyStore['signer'];
  private readonly configuredJwks: JWK[];
  private readonly audience: string;
  /** Every algorithm some key of ours verifies (anything else is refused by name). */
  private readonly algorithms = new Set<string>(['ES256']);

  constructor(load: () => Promise<StoredKey[]>, options: KeyStoreOptions = {}) {
    this.load = load;
    this.audience = options.audience ?? 'authenticated';
    const configured = options.configured ?? [];
    for (const k of configured) {
      const verifier = { alg: k.alg, key: k.verifyKey, lowS: false };
      this.algorithms.add(k.alg);
      if (k.kid !== undefined) this.configured.set(k.kid, verifier);
    }
    // GoTrue: an HS256 token whose kid matches no key is checked with the secret (JWT_SECRET, or
    // a JWT_KEYS oct key without a kid).
    // (config.ts puts JWT_SECRET last.)
    const hmac =
      configured.find((k) => k.alg === 'HS256' && k.kid === undefined) ??
      configured.findLast((k) => k.alg === 'HS256');
    this.hmacFallback = hmac ? { alg: 'HS256', key: hmac.verifyKey, lowS: false } : undefined;
    const signer = configured.find((k) => k.signs);
    this.configuredSigner = signer ? { kid: signer.kid, sign: configuredSigner(signer) } : undefined;
    this.configuredJwks = configured.flatMap((k) => (k.publicJwk ? [k.publicJwk as JWK] : []));
  }

  async reload(): Promise<void> {
    // Newest first: after a rotation the newest active key signs (another instance may briefly
    // still list two active keys while it has not reloaded; the newest wins everywhere).
    const keys = [...(await this.load())].sort(
      (a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0),
    );
    const verifiers = new Map<string, Verifier>();
    const published: JWK[] = [...this.configuredJwks];
    let signer: KeyStore['signer'] = this.configuredSigner;
    // Every key but a retired one is published and accepted, a standby key included (it is
    // published before it signs, so verifiers caching the key set know it in time); the signing key
    // is listed first, for verifiers that take the first key instead of matching the kid.
    for (const k of keys) {
      if (k.status === 'retired') continue;
      const key = (await importJWK(k.publicJwk as JWK, k.algorithm)) as CryptoKey;
      verifiers.set(k.kid, { alg: 'ES256', key, lowS: true });
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

  /** The kid new tokens are signed with (undefined: JWT_SECRET without JWT_KEY_ID). */
  signingKid(): string | undefined {
    return this.signer?.kid;
  }

  /** The algorithms of the published keys (the OpenID configuration lists them). */
  publishedAlgs(): string[] {
    return [...new Set(this.published.map((k) => String(k.alg)))];
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.published };
  }

  /** `aud` is JWT_AUD, the audience verify() asks of user tokens. */
  sign(claims: AccessTokenClaims, issuedAt: number, expiresAt: number, issuer: string): string {
    const signer = this.signer;
    if (!signer) throw new Error('KeyStore not loaded');
    return signer.sign({ ...claims, iss: issuer, aud: this.audience, iat: issuedAt, exp: expiresAt });
  }

  /**
   * Signs claims exactly as given: what the custom access-token hook answered (core/hooks), already
   * checked against GoTrue's minimum token schema; iss, aud, iat and exp are the hook's to keep.
   */
  signClaims(claims: Record<string, unknown>): string {
    const signer = this.signer;
    if (!signer) throw new Error('KeyStore not loaded');
    return signer.sign(claims);
  }

  /**
   * Verifies signature, expiry and audience (JWT_AUD). Throws on any failure. Hardening: the
   * algorithm is pinned by the key the kid names (no `none`, no HS256-with-the-public-key
   * confusion), a database kid must be one of our uuids (no path/URL kids), the key comes only from
   * our own store and settings (embedded `jwk`/`jku`/`x5u` headers are never followed), and a
   * signature by our database keys must be low-S.
   */
  async verify(token: string): Promise<AccessTokenClaims> {
    const payload = await this.verifySignature(token, {
      audience: this.audience,
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

  private async verifierFor(header: ProtectedHeaderParameters): Promise<Verifier | undefined> {
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    if (kid !== undefined) {
      const configured = this.configured.get(kid);
      if (configured) return configured;
      if (KID_PATTERN.test(kid)) {
        let key = this.verifiers.get(kid);
        if (!key && Date.now() - this.lastReload > 10_000) {
          await this.reload();
          key = this.verifiers.get(kid);
        }
        if (key) return key;
      }
    }
    return header.alg === 'HS256' ? this.hmacFallback : undefined;
  }

  private async verifySignature(
    token: string,
    claims: { audience?: string; requiredClaims?: string[] },
  ): Promise<JWTPayload> {
    if (token.length > 16_384) throw new Error('token too large');
    const header = decodeProtectedHeader(token);
    const verifier = await this.verifierFor(header);
    if (!verifier) {
      if (!this.algorithms.has(String(header.alg)))
        throw new Error(`signing method ${String(header.alg).slice(0, 16)} is invalid`);
      throw new Error(typeof header.kid === 'string' ? 'unrecognized JWT kid' : 'missing kid');
    }
    if (header.alg !== verifier.alg)
      throw new Error(`signing method ${String(header.alg).slice(0, 16)} is invalid`);
    if (verifier.lowS && !hasCanonicalSignature(token)) throw new Error('non-canonical (high-S) signature');
    const { payload } = await jwtVerify(token, verifier.key, { algorithms: [verifier.alg], ...claims });
    return payload;
  }
}
