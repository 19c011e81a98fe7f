/**
 * A software WebAuthn authenticator for the tests: a P-256 key made with node:crypto, answering the
 * service's creation options with a "none" attestation and its request options with a signed
 * assertion, byte for byte as a security key would (authenticatorData, clientDataJSON, CBOR via
 * @levischuck/tiny-cbor, the library @simplewebauthn/server itself decodes with). Nothing in the
 * service is stubbed: its verification runs on these bytes.
 *
 *   const key = new VirtualAuthenticator(siteOrigin);
 *   const attestation = key.create(challenge.webauthn.credential_options.publicKey);
 *   const assertion = key.get(otherChallenge.webauthn.credential_options.publicKey);
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type CBORType, encodeCBOR } from '@levischuck/tiny-cbor';

type CreationOptions = { challenge: string; rp: { id?: string }; user?: { id?: string } };
type RequestOptions = { challenge: string; rpId?: string; allowCredentials?: Array<{ id: string }> };

// authenticatorData flags (WebAuthn §6.1): user present, user verified, attested credential data.
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export class VirtualAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly jwk: { x: string; y: string };
  private counter = 0;
  /** The account handle of the creation options (a passkey's), returned with each assertion. */
  private userHandle: string | undefined;
  private readonly origin: string;

  /** `origin` is what the browser would put in clientDataJSON: the page's origin. */
  constructor(origin: string) {
    this.origin = origin;
    this.privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const jwk = this.privateKey.export({ format: 'jwk' });
    this.jwk = { x: jwk.x as string, y: jwk.y as string };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  private authData(rpId: string, flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create(): a RegistrationResponseJSON with a "none" attestation. */
  create(options: CreationOptions): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    this.userHandle = options.user?.id;
    // The COSE_Key of an ES256 public key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y.
    const coseKey = encodeCBOR(
      new Map<number, CBORType>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(this.jwk.x, 'base64url')],
        [-3, Buffer.from(this.jwk.y, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, Buffer.from(coseKey)]);
    const authData = this.authData(rpId, UP | UV | AT, attested);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ['usb'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON signed with this key. */
  get(options: RequestOptions): Record<string, unknown> {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    this.counter += 1;
    const authData = this.authData(rpId, UP | UV);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    // ECDSA over authenticatorData ‖ SHA-256(clientDataJSON), DER-encoded (node's default for EC keys).
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    };
  }
}
