#!/usr/bin/env node
// Runs the official client's own integration suite (supabase/supabase-js, packages/core/auth-js/test,
// jest.config.cli.js) against this service, configured as the suite's test/supabase/config.toml, and
// prints passed/failed counts per file. The suite's code is never copied into this repository: it
// is fetched into a cache directory outside it.
//
//   node scripts/run-auth-js-suite.mjs [jest args…]      e.g. -- test/GoTrueApi.test.ts
//
// Where the suite comes from (first that applies):
//   AUTH_JS_DIR=<path>  a supabase-js checkout, its packages/core/auth-js folder, or a git directory
//                       (bare or not) holding the monorepo, whose HEAD is exported;
//   otherwise           `git clone --depth 1 https://github.com/supabase/supabase-js` into the cache.
// AUTH_JS_CACHE (default ~/.cache/namaa-auth-js) holds the clone, the exported copy and its
// node_modules (installed once with npm; reinstalled when the suite's package.json changes).
// DATABASE_URL: run the service on that PostgreSQL server (default: PGlite in a temporary folder).
// AUTH_JS_JSON=<file>: also write jest's JSON report there.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const cache = resolve(process.env.AUTH_JS_CACHE ?? join(homedir(), '.cache', 'namaa-auth-js'));
const PKG = 'packages/core/auth-js';
const PORT = 54321;
const jestArgs = process.argv.slice(2).filter((a) => a !== '--');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
  return r;
}

function isGitDir(dir) {
  return existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'));
}

/** A folder laid out as the monorepo (tsconfig.base.json + packages/core/auth-js), ready to install into. */
function prepareSource() {
  const work = join(cache, 'work');
  const given = process.env.AUTH_JS_DIR ? resolve(process.env.AUTH_JS_DIR) : undefined;
  let gitDir;
  let tree;
  if (given) {
    if (existsSync(join(given, PKG, 'package.json'))) tree = given;
    else if (existsSync(join(given, 'jest.config.cli.js'))) tree = resolve(given, '../../..');
    else if (isGitDir(given)) gitDir = given;
    else if (isGitDir(join(given, '.git'))) gitDir = join(given, '.git');
    else throw new Error(`AUTH_JS_DIR=${given} holds neither the supabase-js monorepo nor its git directory`);
  } else {
    const clone = join(cache, 'supabase-js');
    if (!existsSync(join(clone, PKG))) {
      mkdirSync(cache, { recursive: true });
      const r = spawnSync(
        'git',
        ['clone', '--depth', '1', 'https://github.com/supabase/supabase-js', clone],
        {
          stdio: 'inherit',
        },
      );
      if (r.status !== 0)
        throw new Error(
          'Could not clone https://github.com/supabase/supabase-js (no network?). Put a copy somewhere and run again with AUTH_JS_DIR=<path> (a checkout or its git directory).',
        );
    }
    tree = clone;
  }
  // A fresh copy of the package (keeping node_modules between runs): the suite writes its signing
  // keys and coverage into its own folders, never into the source we were given.
  const keep = existsSync(join(work, PKG, 'node_modules'))
    ? join(cache, `node_modules.${process.pid}`)
    : undefined;
  if (keep) renameSync(join(work, PKG, 'node_modules'), keep);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (gitDir) {
    const archive = spawnSync(
      'git',
      ['--git-dir', gitDir, 'archive', 'HEAD', PKG, 'tsconfig.base.json', 'pnpm-workspace.yaml'],
      {
        maxBuffer: 512 * 1024 * 1024,
      },
    );
    if (archive.status !== 0) throw new Error(`git archive from ${gitDir} failed: ${archive.stderr}`);
    run('tar', ['-x', '-C', work], { input: archive.stdout, stdio: ['pipe', 'inherit', 'inherit'] });
  } else {
    const filter = (src) => !/[/\\](node_modules|coverage|dist)([/\\]|$)/.test(relative(tree, src));
    cpSync(join(tree, PKG), join(work, PKG), { recursive: true, filter });
    for (const f of ['tsconfig.base.json', 'pnpm-workspace.yaml'])
      if (existsSync(join(tree, f))) cpSync(join(tree, f), join(work, f));
  }
  if (keep) renameSync(keep, join(work, PKG, 'node_modules'));
  return join(work, PKG);
}

/** pnpm's `catalog:` versions (pnpm-workspace.yaml) made concrete, so npm can install the package. */
function installDependencies(pkgDir) {
  const pkgPath = join(pkgDir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const catalog = {};
  const yamlPath = join(pkgDir, '../../../pnpm-workspace.yaml');
  if (existsSync(yamlPath)) {
    const section =
      readFileSync(yamlPath, 'utf8')
        .split(/^catalog:\s*$/m)[1]
        ?.split(/^\S/m)[0] ?? '';
    for (const m of section.matchAll(/^\s+'?([^':\s]+)'?:\s*(\S+)\s*$/gm)) catalog[m[1]] = m[2];
  }
  for (const field of ['dependencies', 'devDependencies'])
    for (const [name, version] of Object.entries(pkg[field] ?? {}))
      if (String(version).startsWith('catalog:')) pkg[field][name] = catalog[name] ?? 'latest';
  delete pkg.scripts;
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  const stamp = createHash('sha256').update(JSON.stringify(pkg)).digest('hex');
  const stampPath = join(pkgDir, 'node_modules', '.namaa-stamp');
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) return;
  console.log('Installing the suite’s dependencies (npm, once per package.json)…');
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--loglevel=error'],
    {
      cwd: pkgDir,
    },
  );
  writeFileSync(stampPath, stamp);
}

async function waitForHealth(url, child) {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited (code ${child.exitCode})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error('the service did not answer /health within 300 s');
}

/** Our service, configured as the suite's test/supabase/config.toml. */
function startService(pkgDir) {
  const keys = readFileSync(join(pkgDir, 'test/supabase/signing_keys.json'), 'utf8');
  const dataDir = mkdtempSync(join(tmpdir(), 'namaa-auth-js-'));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    PORT: String(PORT),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.AUTH_JS_LOG_LEVEL ?? 'error',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dataDir }),
    SITE_DIR: join(dataDir, 'no-site'),
    PGLITE_FSYNC: 'false', // a throw-away database
    // [auth]
    SITE_URL: 'http://127.0.0.1:3000',
    URI_ALLOW_LIST: 'https://127.0.0.1:3000,http://localhost:5173',
    API_EXTERNAL_URL: `http://127.0.0.1:${PORT}/auth/v1`,
    JWT_EXPIRY: '3600',
    JWT_SECRET: 'super-secret-jwt-token-with-at-least-32-characters-long',
    JWT_KEYS: keys, // signing_keys_path: the RS256 key the suite signs its apikeys and admin JWTs with
    // GoTrue does not read `apikey` (the suite's is an RS256 JWT; three of its clients send none).
    API_KEY_REQUIRED: 'false',
    REFRESH_TOKEN_REUSE_INTERVAL: '10',
    DISABLE_SIGNUP: 'false',
    // The suite asserts GoTrue's enumerating answer (422 otp_disabled for an unknown address with
    // shouldCreateUser false); ours is {} unless this opt-in asks for GoTrue's (README).
    OTP_REVEAL_UNKNOWN_USERS: 'true',
    EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
    PASSWORD_MIN_LENGTH: '6',
    PASSWORD_REJECT_COMMON: 'false',
    // [auth.email]: enable_confirmations = false, double_confirm_changes, secure_password_change = false
    MAILER_AUTOCONFIRM: 'true',
    MAILER_SECURE_EMAIL_CHANGE_ENABLED: 'true',
    SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'false',
    MAILER_OTP_EXP: '3600',
    EMAIL_RESPONSE_FLOOR_MS: '0',
    // [auth.sms]: test OTP, max_frequency 1s, and no provider ([auth.sms.twilio] enabled = false):
    // a code for any other number is GoTrue's "Unable to get SMS provider".
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'none',
    SMS_TEST_OTP: '1234567890:123456',
    SMS_MAX_FREQUENCY: '1',
    MFA_PHONE_MAX_FREQUENCY: '1',
    MFA_MAX_ENROLLED_FACTORS: '10',
    // [auth.passkey] enabled = true; [auth.webauthn]
    PASSKEY_ENABLED: 'true',
    RATE_LIMIT_PASSKEY_PER_IP: '100000',
    WEBAUTHN_RP_ID: 'localhost',
    WEBAUTHN_RP_ORIGINS: 'http://localhost:5173',
    WEBAUTHN_RP_DISPLAY_NAME: 'auth-js tests',
    // [auth.rate_limit]: the suite signs up hundreds of users from one address.
    RATE_LIMIT_SIGNIN_PER_IP: '100000',
    RATE_LIMIT_SIGNIN_PER_ACCOUNT: '100000',
    RATE_LIMIT_OTP_PER_IP: '100000',
    RATE_LIMIT_ANONYMOUS_USERS: '100000',
    RATE_LIMIT_VERIFY_PER_IP: '100000',
    RATE_LIMIT_VERIFY_CODES_PER_ADDRESS: '100000',
    RATE_LIMIT_MFA_PER_IP: '100000',
    RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '1000',
    RATE_LIMIT_MFA_BACKOFF_AFTER: '1000',
    RATE_LIMIT_EMAIL_PER_ADDRESS: '100000',
    RATE_LIMIT_EMAIL_FLOOR: '0',
    RATE_LIMIT_EMAIL_SENT: '100000',
    RATE_LIMIT_SMS_SENT: '100000',
  };
  const child = spawn(process.execPath, [join(root, 'apps/auth/src/main.ts')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    child,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function summarize(reportPath, pkgDir) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  const rows = report.testResults.map((f) => {
    const tests = f.assertionResults;
    return {
      file: relative(pkgDir, f.name),
      passed: tests.filter((t) => t.status === 'passed').length,
      failed: tests.filter((t) => t.status === 'failed').length,
      skipped: tests.filter((t) => t.status !== 'passed' && t.status !== 'failed').length,
      failures: tests.filter((t) => t.status === 'failed').map((t) => t.fullName),
      error: tests.length === 0 && f.message ? f.message.split('\n').find((l) => l.trim()) : undefined,
    };
  });
  rows.sort((a, b) => a.file.localeCompare(b.file));
  const width = Math.max(...rows.map((r) => r.file.length), 4);
  console.log(`\n${'file'.padEnd(width)}  passed  failed  skipped`);
  for (const r of rows)
    console.log(
      `${r.file.padEnd(width)}  ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}${r.error ? `  (${r.error.trim().slice(0, 80)})` : ''}`,
    );
  const total = (k) => rows.reduce((n, r) => n + r[k], 0);
  console.log(
    `${'total'.padEnd(width)}  ${String(total('passed')).padStart(6)}  ${String(total('failed')).padStart(6)}  ${String(total('skipped')).padStart(7)}`,
  );
  const failing = rows.filter((r) => r.failures.length > 0);
  if (failing.length > 0) {
    console.log('\nFailing tests:');
    for (const r of failing) for (const name of r.failures) console.log(`  ${r.file}: ${name}`);
  }
  return total('failed');
}

async function main() {
  const pkgDir = prepareSource();
  installDependencies(pkgDir);
  run(process.execPath, ['test/generate-signing-keys.js'], {
    cwd: pkgDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const service = startService(pkgDir);
  const stop = () => service.stop().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let failed = 1;
  try {
    await waitForHealth(`http://127.0.0.1:${PORT}/auth/v1/health`, service.child);
    const reportPath = process.env.AUTH_JS_JSON
      ? resolve(process.env.AUTH_JS_JSON)
      : join(cache, 'last-report.json');
    const jest = spawnSync(
      process.execPath,
      [
        join(pkgDir, 'node_modules/jest/bin/jest.js'),
        '-c',
        'jest.config.cli.js',
        '--coverage=false',
        '--json',
        `--outputFile=${reportPath}`,
        ...jestArgs,
      ],
      { cwd: pkgDir, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CI: 'true' } },
    );
    if (!existsSync(reportPath)) throw new Error(`jest wrote no report (exit ${jest.status})`);
    failed = summarize(reportPath, pkgDir);
  } finally {
    await service.stop();
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 2;
});
