// Signing-key rotation for the access tokens (ES256, published at /auth/v1/.well-known/jwks.json).
// Usage text: ROTATE_KEYS_USAGE below (`npm run keys:rotate -- --help`).
//
// It uses the same environment as the server (.env, DATABASE_URL or DATA_DIR). With PostgreSQL it runs
// while the service is up: instances reload keys every 60 s and at once on an unknown kid. The embedded
// PGlite database is single-process, so with it stop the service first (this command refuses to run
// while it answers on PORT or holds the data directory) and start it again afterwards.
import { type Config, loadConfig, loadDotEnv } from '../../config.ts';
import { runCli } from '../../core/cli.ts';
import { openMigratedDatabase } from '../../core/open-database.ts';
import {
  addSigningKey,
  ensureSigningKey,
  listSigningKeys,
  promoteStandbyKey,
  retireSigningKeys,
  stageSigningKey,
} from '../../db/signing-keys.repo.ts';

/**
 * How long a standby key is published before it may sign: the JWKS answer's cache lifetime
 * (`Cache-Control: max-age=600`, supabase-js getClaims keeps it 10 minutes too) plus the 60 s in which
 * every instance reloads its keys. A verifier that fetched the key set just before the standby key
 * was published refetches it by then.
 */
export const STANDBY_MIN_SECONDS = 600 + 60;

export const ROTATE_KEYS_USAGE = `Usage: npm run keys:rotate [-- --standby | --promote | --retire | --list] [--force]
       (node apps/auth/src/features/keys/rotate-keys.cli.ts)

Rotation with a standby step (recommended: no verifier ever meets an unknown kid):
  --standby    step 1: publish a new key in the JWKS without signing with it yet
  --promote    step 2, ${STANDBY_MIN_SECONDS} s (${STANDBY_MIN_SECONDS / 60} min) or more later: the standby key signs; the
               previous key becomes verify-only (tokens it signed stay valid)
  --retire     step 3, once JWT_EXPIRY + 120 s have passed since step 2: retire verify-only keys that
               can no longer have signed a valid token (removed from the JWKS, private key erased)
One step (no option): add a new key that signs at once (running instances pick it up within 60 s);
               a verifier holding a cached key set meets its kid before it knows it, then refetches.
  --list       show the keys and their state
  --force      skip the safety checks: the service answering on PORT (embedded database), the
               standby key's ${STANDBY_MIN_SECONDS} s before --promote
  -h, --help   this text

Uses the server's settings (.env, DATABASE_URL or DATA_DIR). With the embedded database (PGlite,
one process at a time) stop the service first; with PostgreSQL it runs while the service is up.
See docs/production.md, "Signing-key rotation".`;

async function serviceIsUp(config: Config): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${config.PORT}${config.API_PATH}/health`, {
      signal: AbortSignal.timeout(1000),
    });
    return res.status === 200 || res.status === 503;
  } catch {
    return false;
  }
}

export async function runRotateKeys(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCli(ROTATE_KEYS_USAGE, argv, async () => {
    const modes = ['--standby', '--promote', '--retire', '--list'];
    const unknown = argv.find((a) => ![...modes, '--force'].includes(a));
    if (unknown) {
      console.error(`Unknown option ${unknown} (see --help)`);
      return 1;
    }
    const chosen = modes.filter((m) => argv.includes(m));
    if (chosen.length > 1) {
      console.error(`Choose one of ${chosen.join(', ')} (see --help)`);
      return 1;
    }
    const mode = chosen[0]?.slice(2) ?? 'rotate';
    const force = argv.includes('--force');
    const config: Config = loadConfig(env);
    if (!config.DATABASE_URL && mode !== 'list' && !force && (await serviceIsUp(config))) {
      console.error(
        `The service is running on port ${config.PORT} with the embedded database (PGlite is single-process).\n` +
          'Stop it, run this command, then start it again (or use DATABASE_URL to rotate live).',
      );
      return 2;
    }
    // A data directory held by a running service (on another PORT) is refused by its lock: one
    // line (exit 2), printed by runCli.
    const database = await openMigratedDatabase(config);
    try {
      await ensureSigningKey(database.db);
      const now = new Date();
      if (mode === 'rotate') {
        const key = await addSigningKey(database.db, now);
        console.log(`New signing key ${key.kid} is active; previous keys are verify-only.`);
        console.log(
          `Old tokens stay valid until they expire. After ${config.JWT_EXPIRY + 120} s run: npm run keys:rotate -- --retire`,
        );
      } else if (mode === 'standby') {
        const { key, created } = await stageSigningKey(database.db, now);
        const ready = new Date((key.createdAt?.getTime() ?? now.getTime()) + STANDBY_MIN_SECONDS * 1000);
        console.log(
          created
            ? `Standby key ${key.kid} is published in the JWKS; it signs nothing yet.`
            : `Standby key ${key.kid} is already published (nothing added).`,
        );
        console.log(`From ${ready.toISOString()} run: npm run keys:rotate -- --promote`);
      } else if (mode === 'promote') {
        const result = await promoteStandbyKey(database.db, now, force ? 0 : STANDBY_MIN_SECONDS);
        if (result.outcome === 'none') {
          console.error('No standby key to promote: run npm run keys:rotate -- --standby first.');
          return 2;
        }
        if (result.outcome === 'too_early') {
          console.error(
            `Standby key ${result.kid} was published less than ${STANDBY_MIN_SECONDS} s ago: a verifier may still hold a cached key set without it. Promote from ${result.readyAt.toISOString()} (or --force).`,
          );
          return 2;
        }
        console.log(
          `Standby key ${result.key.kid} now signs; ${result.demoted.join(', ') || 'no key'} became verify-only.`,
        );
        console.log(
          `Old tokens stay valid until they expire. After ${config.JWT_EXPIRY + 120} s run: npm run keys:rotate -- --retire`,
        );
      } else if (mode === 'retire') {
        const { retired, kept } = await retireSigningKeys(database.db, now, config.JWT_EXPIRY);
        for (const kid of retired) console.log(`Retired ${kid} (removed from the JWKS, private key erased).`);
        for (const k of kept)
          console.log(
            `Kept ${k.kid}: tokens it signed may still be valid until ${k.retirableAt.toISOString()}.`,
          );
        if (retired.length === 0 && kept.length === 0) console.log('Nothing to retire.');
      }
      // The configured GoTrue keys outrank the database's (crypto/jwt.ts): say so, or the operator
      // would expect this rotation to change what signs.
      if (config.jwtKeys.some((k) => k.signs))
        console.log(
          'Note: JWT_KEYS or JWT_SECRET is set and signs the access tokens; the database keys below only verify.',
        );
      for (const k of await listSigningKeys(database.db))
        console.log(`  ${k.kid}  ${k.status.padEnd(11)}  created ${k.createdAt?.toISOString() ?? '?'}`);
      return 0;
    } finally {
      await database.close();
    }
  });
}

if (import.meta.main) {
  loadDotEnv();
  process.exitCode = await runRotateKeys(process.argv.slice(2));
}
