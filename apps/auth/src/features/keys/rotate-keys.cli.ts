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
  retireSigningKeys,
} from '../../db/signing-keys.repo.ts';

export const ROTATE_KEYS_USAGE = `Usage: npm run keys:rotate [-- --retire | --list] [--force]
       (node apps/auth/src/features/keys/rotate-keys.cli.ts)

  (no option)  step 1: add a new signing key; the previous ones become verify-only (still in the
               JWKS, so tokens they signed stay valid). Running instances pick it up within 60 s.
  --retire     step 2, once JWT_EXPIRY + 120 s have passed: retire verify-only keys that can no
               longer have signed a valid token (removed from the JWKS, private key erased)
  --list       show the keys and their state
  --force      skip the check that the service is not answering on PORT (embedded database only)
  -h, --help   this text

Uses the server's settings (.env, DATABASE_URL or DATA_DIR). With the embedded database (PGlite,
one process at a time) stop the service first; with PostgreSQL it runs while the service is up.`;

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
    const unknown = argv.find((a) => !['--retire', '--list', '--force'].includes(a));
    if (unknown) {
      console.error(`Unknown option ${unknown} (see --help)`);
      return 1;
    }
    const mode = argv.includes('--retire') ? 'retire' : argv.includes('--list') ? 'list' : 'rotate';
    const config: Config = loadConfig(env);
    if (!config.DATABASE_URL && mode !== 'list' && !argv.includes('--force') && (await serviceIsUp(config))) {
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
