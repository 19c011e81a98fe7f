import { availableParallelism } from 'node:os';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import pLimit from 'p-limit';

// OWASP's argon2id minimum (m=19 MiB, t=2, p=1). @node-rs/argon2 defaults to argon2id and runs the
// hash on the libuv thread pool, so the event loop stays free while it works.
const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * At most one argon2 computation per core at a time; the rest wait in line. argon2 is memory-bound
 * (19 MiB per hash): running more hashes than cores only makes them evict each other from the
 * caches. Measured on the 2-core CI machine (bench/auth-throughput.ts): 2 at a time verify ~237/s
 * at 8.3 ms CPU each, 4 at a time (libuv's default pool) only ~193/s at 10.3 ms each. It also keeps
 * libuv threads free for file and crypto work while sign-ins queue.
 */
const argon2Slots = pLimit(availableParallelism());
/** argon2 computations running now and waiting in line (the memory bound: running × 19 MiB). */
export const argon2Load = () => ({ running: argon2Slots.activeCount, waiting: argon2Slots.pendingCount });
const hash = (password: string, options: typeof ARGON2) => argon2Slots(() => argon2Hash(password, options));
const verify = (stored: string, password: string) => argon2Slots(() => argon2Verify(stored, password));

/**
 * One normalisation everywhere (sign-up, sign-in, change, reset): NFKC, as NIST SP 800-63B suggests,
 * so the same password typed on different keyboards (composed or decomposed accents) matches.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

export async function hashPassword(password: string): Promise<string> {
  return hash(normalizePassword(password), ARGON2);
}

export type VerifyResult = { ok: boolean; needsRehash: boolean };

/**
 * An imported argon2 hash names its own cost: `m=4194304` would make every verify allocate 4 GiB.
 * Refused before hashing with GoTrue's caps (m ≤ 1 GiB, t ≤ 20, p ≤ 16); such a hash never verifies.
 */
export function argon2ParamsAcceptable(stored: string): boolean {
  const params = stored.match(/\$m=(\d+),t=(\d+),p=(\d+)\$/);
  if (!params) return false;
  const [m, t, p] = params.slice(1).map(Number) as [number, number, number];
  return m >= 8 && m <= 1_048_576 && t >= 1 && t <= 20 && p >= 1 && p <= 16;
}

/** Verifies argon2id hashes, and bcrypt hashes imported from Supabase (rehashed on next sign-in). */
export async function verifyPassword(stored: string, password: string): Promise<VerifyResult> {
  if (stored.startsWith('$argon2')) {
    if (!argon2ParamsAcceptable(stored)) return { ok: false, needsRehash: false };
    try {
      const ok = await verify(stored, normalizePassword(password));
      return { ok, needsRehash: ok && !stored.includes('m=19456,t=2,p=1') };
    } catch {
      return { ok: false, needsRehash: false };
    }
  }
  if (/^\$2[aby]\$/.test(stored)) {
    // bcrypt silently truncates at 72 bytes: refuse longer inputs instead of verifying a prefix.
    // GoTrue never normalised, so imported hashes are checked against the raw password.
    if (Buffer.byteLength(password, 'utf8') > 72) return { ok: false, needsRehash: false };
    const ok = await bcrypt.compare(password, stored);
    return { ok, needsRehash: ok };
  }
  return { ok: false, needsRehash: false };
}

/**
 * Whether `secret` matches an argon2 hash written elsewhere for a short secret (GoTrue's recovery
 * codes, moved in by the import), in the same slots and under the same cost caps as a password. No
 * normalisation: the caller brings the secret in the form it was hashed in.
 */
export async function argon2Matches(stored: string, secret: string): Promise<boolean> {
  if (!stored.startsWith('$argon2') || !argon2ParamsAcceptable(stored)) return false;
  try {
    return await verify(stored, secret);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/**
 * Verifying against this hash for unknown accounts makes "no such user" cost the same as "wrong
 * password", so response time does not reveal which emails exist.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('namaa-dummy-password-for-timing');
  await verify(await dummyHash, normalizePassword(password)).catch(() => false);
}
