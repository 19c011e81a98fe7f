import { dictionary } from '@zxcvbn-ts/language-common';
import { normalizePassword } from '../crypto/passwords.ts';

// The ranked list of the most used passwords bundled with zxcvbn-ts (≈49,000 entries, lower-case,
// most common first). Offline by design: no password or hash prefix ever leaves the server.
let common: Set<string> | undefined;

/** Number of passwords in the bundled list (reported by tests and the README). */
export function commonPasswordCount(): number {
  common ??= new Set(dictionary['passwords-common']);
  return common.size;
}

/** True when the password, compared case-insensitively after NFKC, is on the common list. */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common']);
  return common.has(normalizePassword(password).toLowerCase());
}

/** Names a guesser tries first for any account on this site (ASVS 6.2.11 context-specific words). */
export const BRAND_WORDS = ['namaa', 'نماء', 'نما'];

const lettersOnly = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}]/gu, '');

/**
 * True when the password is just the account's own email (or its local part) or the brand name,
 * give or take digits and punctuation ("Namaa2025!", "john.smith1" for john.smith@…). A long
 * passphrase that merely contains one of these words is fine.
 */
export function resemblesIdentity(password: string, email: string | undefined): boolean {
  const pw = password.normalize('NFKC').toLowerCase();
  const pwLetters = lettersOnly(password);
  const candidates = [...BRAND_WORDS];
  if (email) {
    const lower = email.trim().toLowerCase();
    if (pw === lower) return true;
    const local = lower.split('@')[0] ?? '';
    if (pw === local) return true;
    candidates.push(local);
  }
  return candidates.some((word) => {
    const letters = lettersOnly(word);
    return letters.length >= 3 && pwLetters === letters;
  });
}
