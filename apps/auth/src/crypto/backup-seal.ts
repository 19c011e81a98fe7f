// Encryption at rest of a backup (`npm run backup` with BACKUP_KEY): AES-256-GCM from node:crypto.
// Layout: "NAMAABK1" (8 bytes) · IV (12 random bytes) · ciphertext · tag (16 bytes). GCM
// authenticates the whole ciphertext, so a wrong key or a changed byte is refused, never restored
// as a damaged database; the magic is bound in as additional data.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const MAGIC = Buffer.from('NAMAABK1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class BackupKeyError extends Error {
  override name = 'BackupKeyError';
}

/** BACKUP_KEY as 32 bytes: 64 hex characters (`openssl rand -hex 32`). */
export function backupKeyBytes(key: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(key))
    throw new BackupKeyError('BACKUP_KEY must be 64 hex characters (openssl rand -hex 32)');
  return Buffer.from(key, 'hex');
}

export function isSealed(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && Buffer.from(bytes.subarray(0, MAGIC.length)).equals(MAGIC);
}

export function sealBackup(plain: Uint8Array, key: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(MAGIC);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([MAGIC, iv, body, cipher.getAuthTag()]);
}

export function openBackup(sealed: Uint8Array, key: Buffer): Buffer {
  const buf = Buffer.from(sealed);
  if (!isSealed(buf) || buf.length < MAGIC.length + IV_BYTES + TAG_BYTES)
    throw new BackupKeyError('not an encrypted Namaa backup');
  const iv = buf.subarray(MAGIC.length, MAGIC.length + IV_BYTES);
  const tag = buf.subarray(buf.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(MAGIC);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([
      decipher.update(buf.subarray(MAGIC.length + IV_BYTES, buf.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new BackupKeyError(
      'the backup does not open with this BACKUP_KEY (wrong key, or the file was changed)',
    );
  }
}
