// Sealing a secret that waits in the database for a one-time code the client holds: AES-256-GCM
// from node:crypto under a key derived (HKDF-SHA256) from that code. The code itself is stored only
// as its SHA-256, so the row, a dump or a backup holds nothing that opens the secret; whoever
// presents the code (and so found the row by its hash) can. GCM authenticates the ciphertext and the
// `context` (additional data: what the value is), so a wrong code, another context or a changed byte
// does not open it. The code must be unguessable (a random UUID: 122 bits).
// Layout: "v1." · base64url(IV (12 random bytes) · ciphertext · tag (16 bytes)).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'namaa code-sealed secret v1';

function keyFor(code: string): Buffer {
  return Buffer.from(hkdfSync('sha256', code, Buffer.alloc(0), INFO, 32));
}

export function sealWithCode(plain: string, code: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(code), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The sealed text, or undefined when it does not open with this code and context. */
export function openWithCode(sealed: string, code: string, context: string): string | undefined {
  if (!sealed.startsWith(PREFIX)) return undefined;
  const buf = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  if (buf.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(code), buf.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(buf.subarray(buf.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(buf.subarray(IV_BYTES, buf.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}
