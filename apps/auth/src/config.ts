import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { type ConfiguredKey, parseJwtKeys, secretKey } from './crypto/configured-keys.ts';

/** The repository root (apps/auth/src/config.ts → ../../..). Relative paths in config resolve from here. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Public by design: it only identifies the site as an anonymous caller, like Supabase's publishable key. */
export const DEVELOPMENT_ANON_KEY = 'sb_publishable_namaa_development_key';

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v, ctx) => {
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off', ''].includes(v)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  });
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** GoTrue's mail kinds, as in its MAILER_TEMPLATES_<NAME> and MAILER_SUBJECTS_<NAME> settings. */
export const MAIL_TEMPLATE_NAMES = [
  'CONFIRMATION',
  'RECOVERY',
  'EMAIL_CHANGE',
  'MAGIC_LINK',
  'INVITE',
  'REAUTHENTICATION',
] as const;
export type MailTemplateName = (typeof MAIL_TEMPLATE_NAMES)[number];

// Every setting is declared once, below: its name, type and default (zod), and a one-line
// description for the README's settings table (`.meta`). The table is rendered from this schema
// (settings-docs.ts, `npm run docs:settings`) and a test fails when the README differs from it.
declare module 'zod' {
  interface GlobalMeta {
    /** One of the runtime contract's settings (BRIEF.md), listed in the README's first table. */
    contract?: true;
    /** What an unset (or empty) value means, for a setting whose default is worked out at start-up. */
    unsetMeans?: string;
  }
}

/** GoTrue's seven auth hooks, by the name their settings use (HOOK_<NAME>_…). */
export const HOOK_NAMES = [
  'CUSTOM_ACCESS_TOKEN',
  'SEND_SMS',
  'SEND_EMAIL',
  'MFA_VERIFICATION_ATTEMPT',
  'PASSWORD_VERIFICATION_ATTEMPT',
  'BEFORE_USER_CREATED',
  'AFTER_USER_CREATED',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** One hook's three settings, GoTrue's names; `what` says what the hook does, for the README. */
function hookSettings<N extends HookName>(name: N, what: string) {
  return {
    [`HOOK_${name}_ENABLED`]: bool.default(false).meta({ description: `the ${what}` }),
    [`HOOK_${name}_URI`]: optionalString.meta({
      description:
        'where the hook runs: `pg-functions://postgres/<schema>/<function>` (also on the embedded database), `https://…`, or `http://` to localhost only',
    }),
    [`HOOK_${name}_SECRETS`]: optionalString.meta({
      description:
        'for an http(s) hook: Standard Webhooks secrets `v1,whsec_<base64>`, several separated by `|` (each signs the request)',
    }),
  } as {
    [K in `HOOK_${N}_ENABLED`]: typeof bool;
  } & { [K in `HOOK_${N}_URI` | `HOOK_${N}_SECRETS`]: typeof optionalString };
}

/** An enabled hook: where it runs, and how it is reached. */
export type HookTarget =
  | { kind: 'http'; uri: string; secrets: string[] }
  | { kind: 'pg'; uri: string /** `"schema"."function"`, quoted for SQL. */; functionName: string };

const POSTGRES_NAME = /^[a-zA-Z_][a-zA-Z0-9_$]{0,62}$/;
const WEBHOOK_SECRET = /^v1,whsec_[A-Za-z0-9+/=]{24,}$/;

/**
 * Reads HOOK_<NAME>_* into a target, or undefined when the hook is off. Mistakes stop start-up, as in
 * GoTrue (its ValidateExtensibilityPoint): a scheme other than pg-functions/https (http only to
 * localhost), a schema or function name that is not a plain identifier, a secret not `v1,whsec_…`.
 */
function hookTarget(name: HookName, e: Record<string, unknown>, invalid: string[]): HookTarget | undefined {
  const enabled = e[`HOOK_${name}_ENABLED`] === true;
  const uri = e[`HOOK_${name}_URI`] as string | undefined;
  const secrets = ((e[`HOOK_${name}_SECRETS`] as string | undefined) ?? '').split('|').filter(Boolean);
  if (!enabled) return undefined;
  const setting = `HOOK_${name}_URI`;
  if (!uri) {
    invalid.push(`${setting}: HOOK_${name}_ENABLED is true but no URI is set`);
    return undefined;
  }
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    invalid.push(`${setting}: not a URL`);
    return undefined;
  }
  if (u.protocol === 'pg-functions:') {
    const parts = u.pathname.split('/');
    const [schema, fn] = [parts[1] ?? '', parts[2] ?? ''];
    if (!POSTGRES_NAME.test(schema) || !POSTGRES_NAME.test(fn)) {
      invalid.push(`${setting}: expected pg-functions://postgres/<schema>/<function>`);
      return undefined;
    }
    return { kind: 'pg', uri, functionName: `"${schema}"."${fn}"` };
  }
  const localHttp = u.protocol === 'http:' && isLoopbackHost(u.hostname);
  if (u.protocol !== 'https:' && !localHttp) {
    invalid.push(
      `${setting}: only pg-functions:// and https:// hooks are supported (http:// only to localhost)`,
    );
    return undefined;
  }
  if (secrets.length === 0) invalid.push(`HOOK_${name}_SECRETS: an http(s) hook needs a v1,whsec_… secret`);
  for (const secret of secrets)
    if (!WEBHOOK_SECRET.test(secret))
      invalid.push(`HOOK_${name}_SECRETS: each secret must be v1,whsec_<base64> (the value is not shown)`);
  return { kind: 'http', uri, secrets };
}

/**
 * The third-party identity providers (GoTrue's names), each switched on by configuration alone:
 * `EXTERNAL_<NAME>_ENABLED`, `_CLIENT_ID`, `_SECRET`, `_REDIRECT_URI` and, where the provider lives at
 * an address an operator may change, `_URL` (the OpenID issuer, GitHub Enterprise's origin, or one
 * origin standing in for X's two hosts).
 */
export const SOCIAL_PROVIDERS = ['google', 'apple', 'azure', 'github', 'x', 'oidc'] as const;
export type SocialProviderName = (typeof SOCIAL_PROVIDERS)[number];

/** The issuer (or origin) each provider has unless `EXTERNAL_<NAME>_URL` says otherwise. */
export const SOCIAL_PROVIDER_URLS: Record<SocialProviderName, string | undefined> = {
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
  azure: undefined,
  github: 'https://github.com',
  // Two hosts, x.com (authorize) and api.x.com (token, profile): providers.ts, unless EXTERNAL_X_URL.
  x: undefined,
  oidc: undefined,
};

const providerSwitch = () => bool.default(false);
type ProviderKey<N extends string> = `EXTERNAL_${N}_${'CLIENT_ID' | 'SECRET' | 'REDIRECT_URI'}`;

/** `EXTERNAL_<NAME>_ENABLED`, `_CLIENT_ID`, `_SECRET` and `_REDIRECT_URI` of one provider. */
function providerSettings<N extends string>(
  name: N,
  label: string,
): Record<`EXTERNAL_${N}_ENABLED`, ReturnType<typeof providerSwitch>> &
  Record<ProviderKey<N>, typeof optionalString> {
  const multi = name === 'GOOGLE' || name === 'APPLE';
  return {
    [`EXTERNAL_${name}_ENABLED`]: providerSwitch().meta({
      description: `sign in with ${label} (listed under \`external\` in \`GET /settings\`; the site shows its button)`,
    }),
    [`EXTERNAL_${name}_CLIENT_ID`]: optionalString.meta({
      description: `${label}: the OAuth client id${multi ? ' (comma-separated: the first signs in by redirect, all are accepted as ID-token audiences of native apps)' : ''}`,
    }),
    [`EXTERNAL_${name}_SECRET`]: optionalString.meta({
      description: `${label}: the OAuth client secret${name === 'APPLE' ? ' (the client-secret JWT signed with your .p8 key)' : ''}`,
    }),
    [`EXTERNAL_${name}_REDIRECT_URI`]: optionalString.meta({
      description: `${label}: the callback URL registered with the provider`,
      unsetMeans: '`<SUPABASE_URL or SITE_URL>/auth/v1/callback`',
    }),
  } as Record<`EXTERNAL_${N}_ENABLED`, ReturnType<typeof providerSwitch>> &
    Record<ProviderKey<N>, typeof optionalString>;
}

/** `EXTERNAL_<NAME>_URL`: where a provider lives, for those an operator may point elsewhere. */
function providerUrl<N extends string>(
  name: N,
  description: string,
  unsetMeans: string,
): Record<`EXTERNAL_${N}_URL`, typeof optionalString> {
  return { [`EXTERNAL_${name}_URL`]: optionalString.meta({ description, unsetMeans }) } as Record<
    `EXTERNAL_${N}_URL`,
    typeof optionalString
  >;
}

const issuerUrl = (label: string) =>
  `${label}: the OpenID Connect issuer (discovered at \`<url>/.well-known/openid-configuration\`)`;

export const envSchema = z.object({
  NODE_ENV: z
    .string()
    .default('development')
    .meta({ description: '`production` turns on the start-up refusal of unsafe settings' }),
  PORT: int(0, 65535).default(3000).meta({ description: 'listen port', contract: true }),
  HOST: z.string().default('0.0.0.0').meta({ description: 'listen address' }),
  SITE_URL: optionalString.meta({
    description:
      'public origin of the site, used in email links and as the default redirect (required in production)',
    contract: true,
    unsetMeans: '`http://localhost:$PORT`',
  }),
  URI_ALLOW_LIST: z.string().default('').meta({
    description:
      'comma-separated extra redirect targets (globs: `*` stays within a path segment or label, `**` crosses)',
    contract: true,
  }),
  DATA_DIR: z
    .string()
    .default('./data')
    .meta({ description: 'where the embedded database (and its lock) live', contract: true }),
  PGLITE_FSYNC: bool.default(true).meta({
    description:
      'the embedded database flushes every commit to the disk before answering, so a power cut loses nothing acknowledged (PGlite alone never does; see "Reliability")',
  }),
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9]\d{0,5}(kB|MB|GB)$/, 'a PostgreSQL memory size such as 16MB')
    .default('16MB')
    .meta({
      description:
        "the embedded database's buffer cache (PostgreSQL's shared_buffers; PGlite's own default is 128MB). The operating system caches the data files as well, so a small cache costs little speed and keeps the process small (README, \"Footprint\")",
    }),
  DATABASE_URL: optionalString.meta({
    description: 'use this PostgreSQL server instead of the embedded database',
    contract: true,
  }),
  // GoTrue's DB_NAMESPACE: the schema that holds every table and the SQL helpers auth.uid() & co.
  DB_NAMESPACE: z.string().trim().default('auth').meta({
    description:
      "the schema holding the service's tables (`<schema>.users`) and GoTrue's SQL helpers `uid()`, `role()`, `email()`, `jwt()`; a lower-case SQL name",
  }),
  SMTP_URL: optionalString.meta({
    description:
      '`smtp://user:pass@host:port` or `smtps://…` for outgoing mail (another scheme is refused at start-up)',
    contract: true,
    unsetMeans: 'unset: development mailbox',
  }),
  MAIL_FROM: z
    .string()
    .default('no-reply@localhost')
    .meta({ description: 'sender address (refused at `localhost` in production)', contract: true }),
  ANON_KEY: z
    .string()
    .min(1)
    .default(DEVELOPMENT_ANON_KEY)
    .meta({ description: 'the public key the site sends as `apikey`', contract: true }),
  SERVICE_ROLE_KEY: optionalString.meta({
    description:
      'secret key of server-side callers: as `apikey` and as `Authorization: Bearer`, it is an admin credential (see "Admin API"; ≥ 32 characters in production)',
    contract: true,
  }),
  // GoTrue's GOTRUE_JWT_ADMIN_ROLES: a JWT signed by the service's keys with one of these roles is an
  // admin credential, besides the SERVICE_ROLE_KEY itself.
  JWT_ADMIN_ROLES: z.string().default('service_role,supabase_admin').meta({
    description:
      'comma-separated JWT `role` values that may call the admin API (besides `SERVICE_ROLE_KEY`); the JWT must be signed by the service',
  }),
  // GoTrue's JWT settings, so the service can stand in for GoTrue beside PostgREST, Storage and
  // Realtime, which verify its tokens with the same secret or keys.
  JWT_SECRET: optionalString.meta({
    description:
      "GoTrue's shared secret: HS256 tokens signed with it verify (an admin's `service_role` JWT, PostgREST's), and it signs the access tokens when `JWT_KEYS` is unset (≥ 32 characters)",
    unsetMeans: 'unset: no HS256',
  }),
  JWT_KEY_ID: optionalString.meta({
    description: "the `kid` of `JWT_SECRET`'s HS256 key (GoTrue's `GOTRUE_JWT_KEY_ID`)",
    unsetMeans: 'unset: tokens it signs carry no kid',
  }),
  JWT_KEYS: optionalString.meta({
    description:
      'GoTrue\'s JSON array of private JWKs (RS256, RS512, ES256, ES512, EdDSA, or `oct` HS256): the one whose `key_ops` has `"sign"` signs the access tokens, the others only verify; asymmetric public keys are published in the JWKS',
    unsetMeans: 'unset: the database keys (`npm run keys:rotate`)',
  }),
  JWT_AUD: z.string().trim().min(1).max(200).default('authenticated').meta({
    description: 'the `aud` of access tokens and new users (user tokens naming another are refused)',
  }),
  JWT_DEFAULT_GROUP_NAME: z.string().trim().min(1).max(200).default('authenticated').meta({
    description: 'the `role` of new users, which their access tokens carry (PostgREST switches to it)',
  }),
  API_EXTERNAL_URL: optionalString.meta({
    description:
      "the public URL of the API, path included (`https://auth.example.com` with `API_PATH=/`): email links point at `$API_EXTERNAL_URL/verify`, and it is the tokens' issuer",
    unsetMeans: '`$SITE_URL$API_PATH`',
  }),
  API_PATH: z.string().trim().default('/auth/v1').meta({
    description:
      "where the API is mounted: `/auth/v1` (beside the site, as Supabase serves it) or `/` (the API alone, as GoTrue's own container serves it; the site is then not served)",
  }),
  API_KEY_REQUIRED: bool.default(true).meta({
    description:
      'every endpoint but the public ones needs the `apikey` header (`ANON_KEY` or `SERVICE_ROLE_KEY`); `false`: as GoTrue, which leaves that check to a gateway, a request without one (or with another) passes',
  }),
  JWT_EXPIRY: int(1, 60 * 60 * 24 * 7)
    .default(3600)
    .meta({ description: 'access-token lifetime in seconds', contract: true }),
  MAILER_AUTOCONFIRM: bool
    .default(false)
    .meta({ description: '`true` signs users in at sign-up without email confirmation', contract: true }),
  MAILER_OTP_EXP: int(60, 86400)
    .default(3600)
    .meta({ description: 'lifetime of email links and 6-digit codes, seconds' }),
  // GoTrue's default: an email change needs the link sent to the current address AND the one sent to
  // the new address, so a stolen session alone cannot move the account to an attacker's mailbox.
  MAILER_SECURE_EMAIL_CHANGE_ENABLED: bool.default(true).meta({
    description:
      'an email change needs the links sent to the current and the new address (`false`: the new one only)',
  }),
  // A password change from a session older than 24 h needs the code mailed by GET /reauthenticate
  // (GoTrue's rule). On by default, unlike GoTrue: a token stolen from a long-lived session must not
  // be enough to change the password (ASVS 6.2.3). A recovery link's session is fresh, so resetting
  // a forgotten password needs no extra code.
  SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: bool.default(true).meta({
    description:
      "a password change from a session over 24 h old needs the code mailed by `GET /reauthenticate` (`false`: GoTrue's default, never)",
  }),
  REFRESH_TOKEN_REUSE_INTERVAL: int(0, 3600)
    .default(10)
    .meta({ description: 'seconds a just-rotated refresh token may still be replayed', contract: true }),
  PASSWORD_MIN_LENGTH: int(6, 100).default(6).meta({
    description: "minimum password length in code points (6 to 100; the spec's default)",
    contract: true,
  }),
  // The bundled common-password list (plus own email / brand name): on unless explicitly turned off.
  PASSWORD_REJECT_COMMON: bool.default(true).meta({
    description: "refuse the ~49,000 most common passwords, the account's email and the brand name",
  }),
  // CAPTCHA (core/http/captcha.ts): GoTrue's SECURITY_CAPTCHA_* settings, plus the verify URL (ours),
  // for a self-hosted verifier or a local fake in tests.
  SECURITY_CAPTCHA_ENABLED: bool.default(false).meta({
    description:
      "require a CAPTCHA token (`gotrue_meta_security.captcha_token`, supabase-js `captchaToken`) on sign-up, password sign-in, recover, resend, OTP and anonymous sign-in (GoTrue's endpoints); `400 captcha_failed` without a valid one",
  }),
  SECURITY_CAPTCHA_PROVIDER: z.enum(['hcaptcha', 'turnstile']).default('hcaptcha').meta({
    description:
      "`hcaptcha` or `turnstile` (GoTrue's default is hcaptcha; the site's widget defaults to Turnstile's)",
  }),
  SECURITY_CAPTCHA_SECRET: optionalString.meta({
    description: "the provider's secret key (required when CAPTCHA is on; never logged)",
  }),
  // Ours, not GoTrue's: GoTrue's front ends carry their site key themselves. Here the site is served
  // by the same process and reads it from GET /settings (`captcha.site_key`), so the key changes
  // without a rebuild. It is public (the provider shows it in every page that has the widget).
  SECURITY_CAPTCHA_SITE_KEY: optionalString.meta({
    description:
      "the provider's public site key, for the site's widget (sent in `GET /settings` as `captcha.site_key`); required when CAPTCHA is on and the site is served",
  }),
  SECURITY_CAPTCHA_TIMEOUT: int(1, 60).default(10).meta({
    description: "seconds to wait for the provider's verify answer (GoTrue: 10 s)",
  }),
  SECURITY_CAPTCHA_VERIFY_URL: optionalString.meta({
    description: "where tokens are verified (the provider's `siteverify` form API)",
    unsetMeans:
      "the provider's own: `https://hcaptcha.com/siteverify` or Cloudflare's `…/turnstile/v0/siteverify`",
  }),
  // Breached passwords (core/breached-passwords.ts): GoTrue's PASSWORD_HIBP_* settings, and the
  // range API's base URL (ours), so an operator can use a self-hosted mirror.
  PASSWORD_HIBP_ENABLED: bool.default(false).meta({
    description:
      "refuse passwords found in Have I Been Pwned's breach corpus on sign-up, password change and reset (`weak_password`, reason `pwned`); only the first 5 hex digits of the password's SHA-1 leave the server",
  }),
  PASSWORD_HIBP_FAIL_CLOSED: bool.default(false).meta({
    description:
      'when the range API cannot be reached in 5 s: `false` lets the password through (logged), `true` refuses the request (503)',
  }),
  PASSWORD_HIBP_API_URL: z.url().default('https://api.pwnedpasswords.com').meta({
    description:
      'the k-anonymity range API (`<url>/range/<5 hex digits>`): the public one or a self-hosted mirror',
  }),
  PASSWORD_HIBP_USER_AGENT: z.string().default('namaa-auth').meta({
    description: 'the `User-Agent` sent to the range API (the public one asks for one)',
  }),
  // Sign-up, recover and resend answer no sooner than this (ms), so timing does not reveal accounts.
  EMAIL_RESPONSE_FLOOR_MS: int(0, 5000).default(300).meta({
    description: 'sign-up, recover and resend answer no sooner than this (ms), so timing reveals no account',
  }),
  TRUST_PROXY: z.string().default('').meta({
    description:
      'comma-separated IPs or CIDR ranges (or `*`) whose `X-Forwarded-For` is trusted when keying rate limits; checked at start-up, names refused (not resolved)',
    contract: true,
    unsetMeans: 'unset: trust none',
  }),
  // Strict-Transport-Security, sent only when SITE_URL is https (never over plain http, where it is
  // ignored and a local set-up would be pinned by mistake). 0 sends no header.
  HSTS_MAX_AGE: int(0, 10 * 365 * 86400)
    .default(63072000)
    .meta({
      description:
        '`Strict-Transport-Security` max-age in seconds on the API and the site, sent only when `SITE_URL` is https; `0` sends none',
    }),
  HSTS_INCLUDE_SUBDOMAINS: bool
    .default(true)
    .meta({ description: 'add `includeSubDomains` to `Strict-Transport-Security`' }),
  // Browser origins allowed to call the API (CORS): `*` (any; credentials are bearer tokens, never
  // cookies, so this exposes nothing) or a comma-separated list of origins.
  CORS_ALLOWED_ORIGINS: z.string().default('*').meta({
    description:
      'browser origins allowed to call the API: `*` or a comma-separated list of origins (`https://app.example`); others get no `Access-Control-Allow-Origin`',
  }),
  // Prometheus metrics at /metrics (core/metrics.ts). In production they are off unless a bearer
  // token protects them: counts of sign-ins and errors are operator information, not public.
  METRICS_ENABLED: bool.optional().meta({
    description:
      'serve Prometheus metrics at `/metrics` (`false`: not served; `true` in production without `METRICS_TOKEN` serves them to anyone who reaches the port, with a start-up warning)',
    unsetMeans: 'on outside production; in production on only when `METRICS_TOKEN` is set',
  }),
  METRICS_TOKEN: optionalString.meta({
    description:
      '`/metrics` then needs `Authorization: Bearer <token>` (Prometheus `authorization.credentials`); ≥ 32 characters in production',
    unsetMeans: 'unset: no token asked',
  }),
  BACKUP_KEY: optionalString.meta({
    description:
      '64 hex characters (`openssl rand -hex 32`): `npm run backup` encrypts with it (AES-256-GCM) and `npm run restore` needs it; keep it apart from the backups',
    unsetMeans: 'unset: backups are not encrypted',
  }),
  SUPABASE_URL: optionalString.meta({
    description: 'auth origin the site should use, e.g. a hosted Supabase project',
    unsetMeans: "the page's own origin",
  }),
  SITE_DIR: z
    .string()
    .default('apps/web/build/client')
    .meta({ description: 'the built site served beside the API' }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .meta({ description: 'pino log level' }),
  DISABLE_SIGNUP: bool.default(false).meta({ description: 'close sign-ups' }),
  // Off by default: GoTrue's answer tells anyone which addresses and numbers have accounts. On
  // only for a client that relies on that error (and the official client's own suite asserts it).
  OTP_REVEAL_UNKNOWN_USERS: bool.default(false).meta({
    description:
      "`POST /otp` for an address or number without an account, when it may not create one (`create_user: false`, `DISABLE_SIGNUP`), answers GoTrue's `422 otp_disabled` / `signup_disabled`, revealing that no account exists; off: the same `{}` as for an account",
  }),
  // GoTrue's switch: POST /signup with neither email nor phone makes an anonymous user. Off unless
  // asked for: every call creates an account row, so an open endpoint is a way to fill the database.
  EXTERNAL_ANONYMOUS_USERS_ENABLED: bool.default(false).meta({
    description:
      '`signInAnonymously` (`POST /signup` with neither email nor phone) creates an anonymous user; off: `422 anonymous_provider_disabled`',
  }),
  // Social sign-in (features/social): GoTrue's settings, one group per provider.
  ...providerSettings('GOOGLE', 'Google'),
  ...providerUrl('GOOGLE', issuerUrl('Google'), '`https://accounts.google.com`'),
  ...providerSettings('APPLE', 'Apple'),
  ...providerUrl('APPLE', issuerUrl('Apple'), '`https://appleid.apple.com`'),
  ...providerSettings('AZURE', 'Microsoft (Entra ID)'),
  ...providerUrl(
    'AZURE',
    `${issuerUrl('Microsoft')}: your tenant's \`https://login.microsoftonline.com/<tenant id>/v2.0\``,
    'unset (required when enabled)',
  ),
  ...providerSettings('GITHUB', 'GitHub'),
  ...providerUrl(
    'GITHUB',
    'GitHub: origin of a GitHub Enterprise server (API at `<url>/api/v3`)',
    '`https://github.com`',
  ),
  ...providerSettings('X', 'X (OAuth 2.0)'),
  ...providerUrl(
    'X',
    "X: one origin in place of both of X's hosts, as GoTrue's `EXTERNAL_X_URL` (authorize at `<url>/i/oauth2/authorize`, token at `<url>/2/oauth2/token`, profile at `<url>/2/users/me`): a relay, or the tests' stand-in",
    '`https://x.com` (authorize) and `https://api.x.com` (token, profile)',
  ),
  ...providerSettings('OIDC', 'a generic OpenID Connect provider'),
  ...providerUrl('OIDC', issuerUrl('The generic provider'), 'unset (required when enabled)'),
  OIDC_PROVIDER_NAME: z.string().default('OpenID Connect').meta({
    description: 'the generic OpenID Connect provider as the site names it on its button ("Continue with …")',
  }),
  // GoTrue's GOTRUE_SECURITY_MANUAL_LINKING_ENABLED: linkIdentity / unlinkIdentity.
  SECURITY_MANUAL_LINKING_ENABLED: bool.default(false).meta({
    description:
      'a signed-in user may link another provider (`linkIdentity`) and unlink one (`unlinkIdentity`); off: `404 manual_linking_disabled`',
  }),
  // Fixed-window rate limits (count per RATE_LIMIT_WINDOW seconds; 0 turns one off). Defaults follow
  // GoTrue's (30 per 5 min for OTP/verify/sign-up per IP) with a separate sign-in bucket: a refresh is
  // never rate limited, because supabase-js signs the user out on a 429 during refresh. The test
  // harness raises them; the rate-limit suites set their own low values.
  RATE_LIMIT_WINDOW: int(1, 86400)
    .default(300)
    .meta({ description: 'window of the per-IP limits below, seconds' }),
  RATE_LIMIT_SIGNIN_PER_IP: int(0, 1_000_000)
    .default(150)
    .meta({ description: 'password sign-ins per IP per window' }),
  RATE_LIMIT_SIGNIN_PER_ACCOUNT: int(0, 1_000_000)
    .default(100)
    .meta({ description: 'password sign-ins per account per window' }),
  RATE_LIMIT_OTP_PER_IP: int(0, 1_000_000).default(30).meta({
    description:
      'sign-up, recover, resend, `POST /otp`, `PUT /user`, `GET /reauthenticate` per IP per window',
  }),
  // GoTrue's RATE_LIMIT_ANONYMOUS_USERS: anonymous sign-ins per IP per hour (each one is a new account).
  RATE_LIMIT_ANONYMOUS_USERS: int(0, 1_000_000)
    .default(30)
    .meta({ description: "anonymous sign-ins per IP per hour (GoTrue's setting)" }),
  // GoTrue's RATE_LIMIT_PASSKEY: passkey sign-in ceremonies (options and verify) per IP per window.
  RATE_LIMIT_PASSKEY_PER_IP: int(0, 1_000_000).default(30).meta({
    description:
      "passkey sign-ins (`/passkeys/authentication/options` and `/verify`) per IP per `RATE_LIMIT_WINDOW` (GoTrue's `RATE_LIMIT_PASSKEY`)",
  }),
  RATE_LIMIT_VERIFY_PER_IP: int(0, 1_000_000)
    .default(30)
    .meta({ description: 'email verifications per IP per window' }),
  // 6-digit email codes entered per address per hour, from anywhere: what bounds guessing a code
  // (10⁶ of them) by many IPs at once; re-mailing a code does not reset it. The link in the same
  // mail is not counted (its token is unguessable), so an attacker burning this budget cannot stop
  // the owner from confirming or recovering.
  RATE_LIMIT_VERIFY_CODES_PER_ADDRESS: int(0, 1_000_000).default(10).meta({
    description:
      '6-digit email codes (and reauthentication nonces) tried per address per hour, from any IP (links are not counted)',
  }),
  RATE_LIMIT_MFA_PER_IP: int(0, 1_000_000)
    .default(75)
    .meta({ description: 'MFA challenges + verifications per IP per window' }),
  // Failed sign-ins per (account, client network): this many are free, then each further one waits
  // 1, 2, 4 … seconds up to RATE_LIMIT_SIGNIN_BACKOFF_MAX; a success or 2 quiet days reset it.
  RATE_LIMIT_SIGNIN_BACKOFF_AFTER: int(0, 1000)
    .default(5)
    .meta({ description: 'free failed sign-ins per account and network, then waits of 1, 2, 4 … s' }),
  RATE_LIMIT_SIGNIN_BACKOFF_MAX: int(1, 86400)
    .default(900)
    .meta({ description: 'the longest of those waits, seconds' }),
  // Failed MFA verifications per factor (any network): this many are free, then each further attempt
  // waits 1, 2, 4 … seconds up to RATE_LIMIT_MFA_BACKOFF_MAX; the owner is mailed once per streak, and
  // a success or 2 quiet days reset it. 0 turns the back-off off. (GoTrue leaves this to a hook.)
  RATE_LIMIT_MFA_BACKOFF_AFTER: int(0, 1000).default(5).meta({
    description:
      'free failed MFA verifications per factor (from any network), then waits of 1, 2, 4 … s (`429 over_request_rate_limit`); the owner is mailed once per streak; `0` turns it off',
  }),
  RATE_LIMIT_MFA_BACKOFF_MAX: int(1, 86400)
    .default(3600)
    .meta({ description: 'the longest of those MFA waits, seconds' }),
  // Outgoing mail: per address (per RATE_LIMIT_EMAIL_WINDOW), a floor between two messages to one
  // address, and a global quota per hour. Counted alike for existing and unknown addresses.
  RATE_LIMIT_EMAIL_PER_ADDRESS: int(0, 1_000_000).default(10).meta({
    description:
      'mails per recipient per `RATE_LIMIT_EMAIL_WINDOW` (every mail counts against the address it is sent to, whoever asked)',
  }),
  RATE_LIMIT_EMAIL_WINDOW: int(1, 86400)
    .default(3600)
    .meta({ description: 'window of the per-recipient mail limit, seconds' }),
  RATE_LIMIT_EMAIL_FLOOR: int(0, 86400)
    .default(60)
    .meta({ description: 'seconds between two mails to one recipient' }),
  RATE_LIMIT_EMAIL_SENT: int(0, 1_000_000)
    .default(200)
    .meta({ description: 'mails per hour across the server' }),
  RATE_LIMIT_SMS_SENT: int(0, 1_000_000).default(30).meta({
    description:
      "phone-factor SMS per hour across the server (GoTrue's setting; counted only for challenges past their floor)",
  }),
  // MFA (issue 4). WebAuthn relying party: id = SITE_URL's hostname, origins = SITE_URL's origin.
  WEBAUTHN_RP_ID: optionalString.meta({
    description: 'WebAuthn relying-party id',
    unsetMeans: "`SITE_URL`'s host name",
  }),
  WEBAUTHN_RP_ORIGINS: z
    .string()
    .default('')
    .meta({ description: 'comma-separated WebAuthn origins', unsetMeans: "`SITE_URL`'s origin" }),
  WEBAUTHN_RP_DISPLAY_NAME: z
    .string()
    .default('Namaa')
    .meta({ description: 'WebAuthn relying-party name shown by the authenticator' }),
  // Passkeys as a first factor (GoTrue's PASSKEY_ENABLED, MAX_PASSKEYS_PER_USER): the relying party
  // above, the challenge lifetime WEBAUTHN_CHALLENGE_EXPIRY_DURATION.
  PASSKEY_ENABLED: bool.default(false).meta({
    description:
      "sign-in with a passkey (`signInWithPasskey`, `passkey.*`, the admin passkey list and delete); off: GoTrue's `404 passkey_disabled`",
  }),
  PASSKEY_MAX_PER_USER: int(1, 100)
    .default(10)
    .meta({ description: "passkeys one account may register (GoTrue's `MAX_PASSKEYS_PER_USER`)" }),
  WEBAUTHN_CHALLENGE_EXPIRY_DURATION: int(10, 3600)
    .default(300)
    .meta({ description: 'seconds a passkey registration or sign-in challenge stays usable' }),
  MFA_MAX_ENROLLED_FACTORS: int(1, 100).default(10).meta({ description: 'MFA factors per user' }),
  MFA_CHALLENGE_EXPIRY: int(10, 3600)
    .default(300)
    .meta({ description: 'seconds an MFA challenge stays open' }),
  // An unverified factor (an enrolment in progress) lives this long after its creation or last
  // challenge; then it is refused and swept (GoTrue's MFA_FACTOR_EXPIRY_DURATION, 300 s).
  MFA_FACTOR_EXPIRY: int(1, 86400).default(300).meta({
    description:
      "seconds an unverified factor (an enrolment in progress) lives after its creation or last challenge; then it is refused as not found and swept (GoTrue's `MFA_FACTOR_EXPIRY_DURATION`)",
  }),
  // Recovery codes: GoTrue's GOTRUE_MFA_RECOVERY_CODES_* (supabase/auth #2754). On here by default,
  // so a lost authenticator does not lock an account for good.
  MFA_RECOVERY_CODES_ENROLL_ENABLED: bool.default(true).meta({
    description:
      "users may generate and regenerate recovery codes (`POST /factors/recovery-codes[/regenerate]`); off: GoTrue's `422 mfa_recovery_codes_enroll_disabled`",
  }),
  MFA_RECOVERY_CODES_VERIFY_ENABLED: bool.default(true).meta({
    description:
      "a recovery code may complete the second sign-in step (`POST /factors/recovery-codes/verify`); off: GoTrue's `422 mfa_recovery_codes_verify_disabled`",
  }),
  MFA_RECOVERY_CODES_MAX_FAILED_ATTEMPTS: int(1, 100).default(5).meta({
    description:
      'wrong recovery codes in a row before verification is locked (`429 mfa_recovery_codes_locked`); a right code resets the count',
  }),
  MFA_RECOVERY_CODES_LOCKOUT_DURATION: int(1, 86400).default(900).meta({
    description: 'seconds recovery-code verification stays locked after too many wrong codes',
  }),
  MFA_PHONE_OTP_EXPIRY: int(10, 3600).default(300).meta({ description: 'seconds an SMS code stays valid' }),
  MFA_PHONE_MAX_FREQUENCY: int(0, 3600)
    .default(60)
    .meta({ description: 'seconds between two SMS codes for one phone factor' }),
  // SMS for the phone factor: 'dev' writes to the development mailbox, 'webhook' POSTs to SMS_WEBHOOK_URL.
  SMS_PROVIDER: z
    .enum(['dev', 'webhook', 'unifonic', 'taqnyat', 'msegat', 'twilio', 'none', ''])
    .default('')
    .meta({
      description:
        'SMS delivery of phone codes: `dev` (the development mailbox), `webhook`, a gateway: `unifonic`, `taqnyat`, `msegat`, `twilio`, or `none` (no SMS: a code to a number outside `SMS_TEST_OTP` is GoTrue\'s `500 sms_send_failed` "Unable to get SMS provider", and phone factors are off)',
      unsetMeans: '`dev` outside production, none in production',
    }),
  SMS_WEBHOOK_URL: optionalString.meta({
    description: 'with `SMS_PROVIDER=webhook`: where `{to, body, kind}` is POSTed',
  }),
  SMS_WEBHOOK_TOKEN: optionalString.meta({ description: 'bearer token sent to `SMS_WEBHOOK_URL`' }),
  // The Saudi gateways and Twilio (core/sms/*.ts). Base URLs are settings so tests (and a proxy)
  // can stand in for the provider; credentials are required only for the provider chosen.
  SMS_SENDER_ID: optionalString.meta({
    description:
      'the registered sender name (alphanumeric, at most 11 characters) for `unifonic`, `taqnyat` and `msegat`',
  }),
  SMS_UNIFONIC_APP_SID: optionalString.meta({ description: 'Unifonic AppSid (`SMS_PROVIDER=unifonic`)' }),
  SMS_UNIFONIC_BASE_URL: z
    .url()
    .default('https://el.cloud.unifonic.com')
    .meta({ description: 'Unifonic API base URL' }),
  SMS_TAQNYAT_TOKEN: optionalString.meta({ description: 'Taqnyat bearer token (`SMS_PROVIDER=taqnyat`)' }),
  SMS_TAQNYAT_BASE_URL: z
    .url()
    .default('https://api.taqnyat.sa')
    .meta({ description: 'Taqnyat API base URL (SMS and WhatsApp)' }),
  SMS_MSEGAT_USERNAME: optionalString.meta({ description: 'Msegat userName (`SMS_PROVIDER=msegat`)' }),
  SMS_MSEGAT_API_KEY: optionalString.meta({ description: 'Msegat apiKey (`SMS_PROVIDER=msegat`)' }),
  SMS_MSEGAT_BASE_URL: z.url().default('https://www.msegat.com').meta({ description: 'Msegat API base URL' }),
  SMS_TWILIO_ACCOUNT_SID: optionalString.meta({
    description: "Twilio account SID (`SMS_PROVIDER=twilio`, GoTrue's setting)",
  }),
  SMS_TWILIO_AUTH_TOKEN: optionalString.meta({ description: "Twilio auth token (GoTrue's setting)" }),
  SMS_TWILIO_MESSAGE_SERVICE_SID: optionalString.meta({
    description: "Twilio Messaging Service SID the SMS is sent from (GoTrue's setting)",
  }),
  SMS_TWILIO_BASE_URL: z.url().default('https://api.twilio.com').meta({ description: 'Twilio API base URL' }),
  SMS_PROVIDER_TIMEOUT: int(100, 60_000).default(10_000).meta({
    description:
      'milliseconds an SMS or WhatsApp API call may take; a timeout is retried through the outbox like a 5xx',
  }),
  // WhatsApp codes (channel "whatsapp"): Meta's Cloud API or Taqnyat's WhatsApp endpoint.
  WHATSAPP_PROVIDER: z.enum(['', 'meta', 'taqnyat']).default('').meta({
    description:
      'WhatsApp delivery of phone codes (`channel: "whatsapp"`): `meta` (WhatsApp Cloud API) or `taqnyat`; unset: GoTrue\'s answer for an unsupported channel',
  }),
  WHATSAPP_META_BASE_URL: z
    .url()
    .default('https://graph.facebook.com/v21.0')
    .meta({ description: 'WhatsApp Cloud API base URL, with its version' }),
  WHATSAPP_META_PHONE_NUMBER_ID: optionalString.meta({
    description: 'the WhatsApp Business phone number id the codes are sent from (`WHATSAPP_PROVIDER=meta`)',
  }),
  WHATSAPP_META_TOKEN: optionalString.meta({ description: 'WhatsApp Cloud API access token (bearer)' }),
  // Meta reports "not on WhatsApp" after accepting a message, through its status webhook: with
  // these two set, POST /whatsapp/webhook turns such a failure into the SMS fallback.
  WHATSAPP_META_APP_SECRET: optionalString.meta({
    description:
      "the Meta app's secret: checks the `X-Hub-Signature-256` of Meta's status webhook (`POST /whatsapp/webhook`), whose failed deliveries then go out by the next channel of `OTP_CHANNEL_FALLBACK`",
    unsetMeans: 'no status webhook: only refusals in the API answer fall back',
  }),
  WHATSAPP_META_WEBHOOK_VERIFY_TOKEN: optionalString.meta({
    description:
      "the verify token entered in Meta's webhook subscription (`GET /whatsapp/webhook` echoes `hub.challenge` to it); needed with `WHATSAPP_META_APP_SECRET`",
  }),
  WHATSAPP_META_TEMPLATE: optionalString.meta({
    description:
      'name of the approved authentication template (code as body parameter and copy-code button), in `en` and `ar`',
  }),
  WHATSAPP_TAQNYAT_TOKEN: optionalString.meta({
    description: 'Taqnyat WhatsApp bearer token (`WHATSAPP_PROVIDER=taqnyat`)',
    unsetMeans: '`SMS_TAQNYAT_TOKEN`',
  }),
  WHATSAPP_TAQNYAT_TEMPLATE: optionalString.meta({
    description: 'name of the authentication template approved through Taqnyat',
    unsetMeans: '`WHATSAPP_META_TEMPLATE`',
  }),
  OTP_CHANNEL_FALLBACK: z.string().default('whatsapp,sms').meta({
    description:
      'the order channels are tried in when a phone code is asked for by WhatsApp: a failed WhatsApp delivery goes out by the next (`sms`) within seconds; `whatsapp` alone: no fallback',
  }),
  // Phone sign-in (GoTrue's EXTERNAL_PHONE_ENABLED): signInWithOtp({ phone }) and verifyOtp type sms,
  // through the SMS sender above. Off by default: every code costs money and needs a real provider.
  EXTERNAL_PHONE_ENABLED: bool.default(false).meta({
    description:
      "phone sign-in with SMS codes (`signInWithOtp({ phone })`, `verifyOtp` type `sms`) through `SMS_PROVIDER`; off: GoTrue's `phone_provider_disabled`",
  }),
  // GoTrue's SMS_AUTOCONFIRM: a phone + password sign-up is confirmed at once and signed in (no code).
  SMS_AUTOCONFIRM: bool.default(false).meta({
    description:
      "phone + password sign-ups are confirmed at once and signed in, without an SMS code (GoTrue's `SMS_AUTOCONFIRM`)",
  }),
  SMS_OTP_EXP: int(10, 86400)
    .default(60)
    .meta({ description: "seconds a sign-in SMS code stays valid (GoTrue's)" }),
  SMS_MAX_FREQUENCY: int(0, 3600)
    .default(60)
    .meta({ description: "seconds between two sign-in SMS codes to one number (GoTrue's)" }),
  // GoTrue's SMS_TEST_OTP: fixed codes for test numbers, `number:code` pairs (E.164 without "+"),
  // comma-separated. No SMS is sent to them and their code is not used up.
  SMS_TEST_OTP: z.string().default('').meta({
    description:
      "fixed sign-in codes for test numbers, `15555550100:123456,…` (GoTrue's): no SMS is sent and the code stays valid",
  }),
  // PKCE flow states (code_challenge on sign-up, recovery, email change) live this long.
  FLOW_STATE_EXPIRY: int(10, 86400).default(300).meta({ description: 'PKCE auth-code lifetime, seconds' }),
  // GoTrue's session limits, seconds (0 = none, GoTrue's default): a session ends this long after it
  // began, or after going this long without a refresh; its refresh token then answers
  // 400 session_expired and supabase-js signs the user out.
  SESSIONS_TIMEBOX: int(0, 10 * 365 * 86400)
    .default(0)
    .meta({
      description:
        "a session ends this many seconds after it began; its refresh token then answers `400 session_expired` (GoTrue's setting; `0`: never)",
    }),
  SESSIONS_INACTIVITY_TIMEOUT: int(0, 10 * 365 * 86400)
    .default(0)
    .meta({
      description: "a session ends this many seconds after its last refresh (GoTrue's setting; `0`: never)",
    }),
  // The periodic sweep (core/sweep.ts): what the service no longer needs is deleted in small batches.
  // Each RETENTION_* is how long a row is kept after it stopped being usable; one mechanism, so a
  // retention policy (the Gulf edition's) is a matter of these settings.
  SWEEP_INTERVAL: int(0, 86400)
    .default(600)
    .meta({ description: 'seconds between two sweeps of expired and ended rows (`0`: never sweep)' }),
  RETENTION_REVOKED_REFRESH_TOKENS: int(0, 365 * 86400)
    .default(86400)
    .meta({
      description:
        "seconds a rotated refresh token row is kept after `REFRESH_TOKEN_REUSE_INTERVAL` (its replay then ends the session; after, it is unknown). The parent of the active token is always kept. Only tokens issued before sessions held their refresh token have rows; a current token leaves none, and a replay of any of a session's last 32 tokens is recognised while the session lives",
    }),
  RETENTION_ENDED_SESSIONS: int(0, 365 * 86400)
    .default(86400)
    .meta({
      description:
        'seconds a session ended by `SESSIONS_TIMEBOX`, `SESSIONS_INACTIVITY_TIMEOUT` or `not_after` is kept',
    }),
  RETENTION_EXPIRED_TOKENS: int(0, 365 * 86400)
    .default(86400)
    .meta({
      description: 'seconds expired email links and codes, PKCE flow states and MFA challenges are kept',
    }),
  AUDIT_LOG_RETENTION_DAYS: int(0, 100 * 365)
    .default(90)
    .meta({ description: 'days audit-log rows are kept (`0`: forever)' }),
  // PDPL minimisation: a sign-up nobody confirmed holds an address (and a password hash) for
  // nothing. A week outlives every confirmation link (MAILER_OTP_EXP is at most a day by default) and
  // a late "resend", and keeps addresses typed by strangers from lingering.
  RETENTION_UNCONFIRMED_USERS: int(0, 10 * 365 * 86400)
    .default(7 * 86400)
    .meta({
      description:
        'seconds a never-confirmed email or phone sign-up (no confirmation, no sign-in, not invited, not anonymous) is kept after its last confirmation request; never less than `MAILER_OTP_EXP` and `SMS_OTP_EXP` (`0`: forever)',
    }),
  // PDPL (docs/pdpl.md): the consent the sign-up form asks for is recorded as this version.
  PRIVACY_NOTICE_VERSION: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,32}$/, 'letters, digits, dot, dash or underscore, at most 32')
    .default('2026-11')
    .meta({
      description:
        'the privacy notice in force: recorded with the time of acceptance on every sign-up whose client states acceptance (`data.privacy_notice_accepted: true`); change it with the notice',
    }),
  // Data residency (core/outbound.ts): with 'sa', every configured outbound service outside Saudi
  // Arabia stops start-up unless named in OUTBOUND_ALLOW.
  DATA_RESIDENCY: z.enum(['', 'sa']).default('').meta({
    description:
      '`sa`: refuse to start with any configured outbound service outside Saudi Arabia (foreign SMS/WhatsApp APIs, breached-password lookups, CAPTCHA, social sign-in) unless allowed by `OUTBOUND_ALLOW`; empty: no residency rule',
  }),
  OUTBOUND_ALLOW: z.string().default('').meta({
    description:
      'with `DATA_RESIDENCY`: comma list of outbound services allowed although foreign, by the names of the README\'s "Every outbound call" list (e.g. `hibp,captcha`)',
  }),
  // Operators' mail templates, GoTrue's names: a file path or http(s) URL each (MAILER_TEMPLATES_*),
  // and a subject each (MAILER_SUBJECTS_*); read and parsed at start-up (core/mail/templates.ts), so a
  // broken one stops start-up. Unset: the built-in design, in the user's language.
  MAILER_TEMPLATES_CONFIRMATION: optionalString.meta({
    description:
      "the sign-up confirmation mail's HTML template (GoTrue's variables), replacing the design in both languages: an `http(s)://` URL or a file path",
    unsetMeans: 'the built-in design',
  }),
  MAILER_TEMPLATES_RECOVERY: optionalString.meta({
    description:
      "the password recovery mail's HTML template (GoTrue's variables), replacing the design in both languages: an `http(s)://` URL or a file path",
    unsetMeans: 'the built-in design',
  }),
  MAILER_TEMPLATES_EMAIL_CHANGE: optionalString.meta({
    description:
      "the email change (both addresses) mail's HTML template (GoTrue's variables), replacing the design in both languages: an `http(s)://` URL or a file path",
    unsetMeans: 'the built-in design',
  }),
  MAILER_TEMPLATES_MAGIC_LINK: optionalString.meta({
    description:
      "the magic link mail's HTML template (GoTrue's variables), replacing the design in both languages: an `http(s)://` URL or a file path",
    unsetMeans: 'the built-in design',
  }),
  MAILER_TEMPLATES_INVITE: optionalString.meta({
    description:
      "the invitation mail's HTML template (GoTrue's variables), replacing the design in both languages: an `http(s)://` URL or a file path",
    unsetMeans: 'the built-in design',
  }),
  MAILER_TEMPLATES_REAUTHENTICATION: optionalString.meta({
    description:
      "the reauthentication code mail's HTML template (GoTrue's variables), replacing the design in both languages: an `http(s)://` URL or a file path",
    unsetMeans: 'the built-in design',
  }),
  MAILER_SUBJECTS_CONFIRMATION: optionalString.meta({
    description: "the sign-up confirmation mail's subject (may use the same variables)",
    unsetMeans: "the built-in subject, in the user's language",
  }),
  MAILER_SUBJECTS_RECOVERY: optionalString.meta({
    description: "the password recovery mail's subject (may use the same variables)",
    unsetMeans: "the built-in subject, in the user's language",
  }),
  MAILER_SUBJECTS_EMAIL_CHANGE: optionalString.meta({
    description: "the email change (both addresses) mail's subject (may use the same variables)",
    unsetMeans: "the built-in subject, in the user's language",
  }),
  MAILER_SUBJECTS_MAGIC_LINK: optionalString.meta({
    description: "the magic link mail's subject (may use the same variables)",
    unsetMeans: "the built-in subject, in the user's language",
  }),
  MAILER_SUBJECTS_INVITE: optionalString.meta({
    description: "the invitation mail's subject (may use the same variables)",
    unsetMeans: "the built-in subject, in the user's language",
  }),
  MAILER_SUBJECTS_REAUTHENTICATION: optionalString.meta({
    description: "the reauthentication code mail's subject (may use the same variables)",
    unsetMeans: "the built-in subject, in the user's language",
  }), // GoTrue's auth hooks (core/hooks): HOOK_<NAME>_ENABLED, _URI, _SECRETS for each of the seven.
  ...hookSettings(
    'CUSTOM_ACCESS_TOKEN',
    'custom access-token hook: changes the claims of every access token',
  ),
  ...hookSettings('SEND_SMS', 'send-SMS hook: delivers SMS codes instead of `SMS_PROVIDER`'),
  ...hookSettings('SEND_EMAIL', 'send-email hook: delivers auth mail instead of SMTP'),
  ...hookSettings(
    'MFA_VERIFICATION_ATTEMPT',
    'MFA verification hook: told of every second-factor code checked, may reject',
  ),
  ...hookSettings(
    'PASSWORD_VERIFICATION_ATTEMPT',
    'password verification hook: told of every password sign-in checked, may reject',
  ),
  ...hookSettings('BEFORE_USER_CREATED', 'before-user-created hook: may refuse a new account'),
  ...hookSettings('AFTER_USER_CREATED', 'after-user-created hook: told of every new account'),
});

export type Config = {
  nodeEnv: string;
  production: boolean;
  /** Start-up warnings (one line each) for settings that work but are probably a mistake; main logs them. */
  warnings: string[];
  PORT: number;
  HOST: string;
  SITE_URL: string;
  URI_ALLOW_LIST: string[];
  DATA_DIR: string;
  /** On-disk PGlite flushes every commit to the disk (db/pglite-durable.ts). */
  PGLITE_FSYNC: boolean;
  /** The embedded database's shared_buffers (db/client.ts). */
  PGLITE_SHARED_BUFFERS: string;
  DATABASE_URL: string | undefined;
  /** The schema every table lives in (db/namespace.ts); a validated lower-case SQL identifier. */
  DB_NAMESPACE: string;
  SMTP_URL: string | undefined;
  MAIL_FROM: string;
  ANON_KEY: string;
  SERVICE_ROLE_KEY: string | undefined;
  /** Roles whose signed JWT is an admin credential (the admin API). */
  JWT_ADMIN_ROLES: string[];
  JWT_EXPIRY: number;
  /** JWT_KEYS and JWT_SECRET, parsed (crypto/configured-keys.ts); empty: the database keys alone. */
  jwtKeys: ConfiguredKey[];
  JWT_AUD: string;
  JWT_DEFAULT_GROUP_NAME: string;
  /** Without a trailing slash; undefined: SITE_URL + API_PATH (core/api-url.ts). */
  API_EXTERNAL_URL: string | undefined;
  /** '' for the root, else '/auth/v1' (no trailing slash). */
  API_PATH: string;
  API_KEY_REQUIRED: boolean;
  MAILER_AUTOCONFIRM: boolean;
  MAILER_OTP_EXP: number;
  MAILER_SECURE_EMAIL_CHANGE_ENABLED: boolean;
  SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: boolean;
  REFRESH_TOKEN_REUSE_INTERVAL: number;
  PASSWORD_MIN_LENGTH: number;
  PASSWORD_MAX_LENGTH: number;
  PASSWORD_REJECT_COMMON: boolean;
  /** CAPTCHA on the public forms (core/http/captcha.ts); undefined when off. */
  captcha:
    | {
        provider: 'hcaptcha' | 'turnstile';
        /** The public site key the site's widget renders with; undefined when not set. */
        siteKey: string | undefined;
        secret: string;
        verifyUrl: string;
        timeoutMs: number;
      }
    | undefined;
  /** Breached-password checks (core/breached-passwords.ts); undefined when off. */
  hibp: { apiUrl: string; failClosed: boolean; userAgent: string } | undefined;
  EMAIL_RESPONSE_FLOOR_MS: number;
  TRUST_PROXY: string[];
  HSTS_MAX_AGE: number;
  HSTS_INCLUDE_SUBDOMAINS: boolean;
  /** ['*'] or exact origins (`https://app.example`, no path). */
  CORS_ALLOWED_ORIGINS: string[];
  /** /metrics is served (METRICS_ENABLED, or its default worked out from production and the token). */
  METRICS_ENABLED: boolean;
  METRICS_TOKEN: string | undefined;
  BACKUP_KEY: string | undefined;
  SUPABASE_URL: string | undefined;
  SITE_DIR: string;
  LOG_LEVEL: string;
  DISABLE_SIGNUP: boolean;
  OTP_REVEAL_UNKNOWN_USERS: boolean;
  EXTERNAL_ANONYMOUS_USERS_ENABLED: boolean;
  PRIVACY_NOTICE_VERSION: string;
  /**
   * DATA_RESIDENCY and OUTBOUND_ALLOW (core/outbound.ts checks them at start-up), with the raw
   * SMS_PROVIDER and WHATSAPP_PROVIDER values, so the check knows providers by name whatever this
   * release's schema of those settings accepts.
   */
  residency: { region: '' | 'sa'; allow: string[]; smsProvider: string; whatsappProvider: string };
  phone: {
    enabled: boolean;
    otpExp: number;
    maxFrequency: number;
    /** Test number (digits, no "+") → its fixed code. */
    testOtp: Map<string, string>;
    autoconfirm: boolean;
  };
  passkey: { enabled: boolean; maxPerUser: number; challengeExpiry: number };
  mfa: {
    rpId: string | undefined;
    rpOrigins: string[];
    rpName: string;
    maxEnrolledFactors: number;
    challengeExpiry: number;
    /** Seconds an unverified factor lives after its creation or last challenge. */
    factorExpiry: number;
    phoneOtpExpiry: number;
    /** Seconds between two SMS codes for one phone factor. */
    phoneMaxFrequency: number;
    recoveryCodes: {
      enrollEnabled: boolean;
      verifyEnabled: boolean;
      maxFailedAttempts: number;
      /** Seconds. */
      lockoutDuration: number;
    };
    /** 'none' when no SMS provider is configured in production (phone factors then disabled). */
    smsProvider: SmsProviderName | 'none';
    smsWebhookUrl: string | undefined;
    smsWebhookToken: string | undefined;
  };
  /** Phone codes through SMS gateways and WhatsApp (core/sms). */
  delivery: DeliveryConfig;
  /** Third-party sign-in (features/social). */
  social: {
    providers: Record<SocialProviderName, SocialProviderConfig>;
    /** The generic OpenID Connect provider's name on the site's button. */
    oidcName: string;
    manualLinking: boolean;
  };
  FLOW_STATE_EXPIRY: number;
  SESSIONS_TIMEBOX: number;
  SESSIONS_INACTIVITY_TIMEOUT: number;
  /** The periodic sweep (core/sweep.ts); seconds, except auditDays. */
  sweep: {
    interval: number;
    revokedRefreshTokens: number;
    endedSessions: number;
    expiredTokens: number;
    /** 0: keep forever. */
    auditDays: number;
    /** Seconds; 0: keep forever. */
    unconfirmedUsers: number;
  };
  /** Operators' overrides of the designed mail (unset: the built-in design, in the user's language). */
  mailer: {
    templates: Partial<Record<MailTemplateName, string>>;
    subjects: Partial<Record<MailTemplateName, string>>;
  };
  /** The enabled auth hooks (core/hooks); a hook that is off has no entry. */
  hooks: Partial<Record<HookName, HookTarget>>;
  rateLimits: {
    window: number;
    signinPerIp: number;
    signinPerAccount: number;
    otpPerIp: number;
    anonymousPerIp: number;
    passkeyPerIp: number;
    verifyPerIp: number;
    verifyCodesPerAddress: number;
    emailPerAddress: number;
    emailWindow: number;
    mfaPerIp: number;
    signinBackoffAfter: number;
    signinBackoffMax: number;
    mfaBackoffAfter: number;
    mfaBackoffMax: number;
    emailFloor: number;
    emailSentPerHour: number;
    smsSentPerHour: number;
  };
};

export type SocialProviderConfig = {
  enabled: boolean;
  /** The first signs in by redirect; all are accepted as ID-token audiences. */
  clientIds: string[];
  secret: string | undefined;
  /** Unset: `<SUPABASE_URL or SITE_URL>/auth/v1/callback`, worked out per request. */
  redirectUri: string | undefined;
  /** The issuer (OpenID providers) or origin (GitHub, X); undefined for X unless EXTERNAL_X_URL is set. */
  url: string | undefined;
};

/** Each provider's settings, with the problems of an enabled one that cannot work. */
function pickSocialProviders(
  e: Record<string, unknown>,
  problems: string[],
): Record<SocialProviderName, SocialProviderConfig> {
  const str = (key: string) => (typeof e[key] === 'string' ? (e[key] as string) : undefined);
  const out = {} as Record<SocialProviderName, SocialProviderConfig>;
  for (const name of SOCIAL_PROVIDERS) {
    const p = `EXTERNAL_${name.toUpperCase()}_`;
    const cfg: SocialProviderConfig = {
      enabled: e[`${p}ENABLED`] === true,
      clientIds: (str(`${p}CLIENT_ID`) ?? '')
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
      secret: str(`${p}SECRET`),
      redirectUri: str(`${p}REDIRECT_URI`),
      url: (str(`${p}URL`) ?? SOCIAL_PROVIDER_URLS[name])?.replace(/\/+$/, ''),
    };
    out[name] = cfg;
    if (!cfg.enabled) continue;
    if (cfg.clientIds.length === 0) problems.push(`${p}ENABLED is true but ${p}CLIENT_ID is unset`);
    if (!cfg.secret) problems.push(`${p}ENABLED is true but ${p}SECRET is unset`);
    if ((name === 'azure' || name === 'oidc') && !cfg.url)
      problems.push(`${p}ENABLED is true but ${p}URL (the issuer) is unset`);
    for (const [key, value] of [
      [`${p}URL`, cfg.url],
      [`${p}REDIRECT_URI`, cfg.redirectUri],
    ] as const) {
      if (value === undefined) continue;
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        // reported below
      }
      // Plain http only on this machine (a test or development provider): tokens cross this link.
      if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))))
        problems.push(`${key} must be an https URL (http only on loopback), got "${value}"`);
    }
  }
  return out;
}

function pickMailSettings(
  e: Record<string, unknown>,
  prefix: string,
): Partial<Record<MailTemplateName, string>> {
  const out: Partial<Record<MailTemplateName, string>> = {};
  for (const n of MAIL_TEMPLATE_NAMES) {
    const v = e[`${prefix}${n}`];
    if (typeof v === 'string') out[n] = v;
  }
  return out;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type SmsProviderName = 'dev' | 'webhook' | 'unifonic' | 'taqnyat' | 'msegat' | 'twilio';
export type OtpChannel = 'whatsapp' | 'sms';
export type DeliveryConfig = {
  senderId: string | undefined;
  timeoutMs: number;
  unifonic: { appSid: string; baseUrl: string } | undefined;
  taqnyat: { token: string; baseUrl: string } | undefined;
  msegat: { userName: string; apiKey: string; baseUrl: string } | undefined;
  twilio: { accountSid: string; authToken: string; messageServiceSid: string; baseUrl: string } | undefined;
  whatsapp:
    | { provider: 'meta'; baseUrl: string; phoneNumberId: string; token: string; template: string }
    | { provider: 'taqnyat'; baseUrl: string; token: string; template: string }
    | undefined;
  /** Meta's status webhook (features/whatsapp-status), when WHATSAPP_META_APP_SECRET is set. */
  whatsappWebhook: { appSecret: string; verifyToken: string } | undefined;
  /** The order channels are tried in for a code asked for by WhatsApp (always starts with whatsapp). */
  fallback: OtpChannel[];
};

type DeliveryEnv = Pick<
  z.output<typeof envSchema>,
  | 'SMS_SENDER_ID'
  | 'SMS_PROVIDER_TIMEOUT'
  | 'SMS_UNIFONIC_APP_SID'
  | 'SMS_UNIFONIC_BASE_URL'
  | 'SMS_TAQNYAT_TOKEN'
  | 'SMS_TAQNYAT_BASE_URL'
  | 'SMS_MSEGAT_USERNAME'
  | 'SMS_MSEGAT_API_KEY'
  | 'SMS_MSEGAT_BASE_URL'
  | 'SMS_TWILIO_ACCOUNT_SID'
  | 'SMS_TWILIO_AUTH_TOKEN'
  | 'SMS_TWILIO_MESSAGE_SERVICE_SID'
  | 'SMS_TWILIO_BASE_URL'
  | 'WHATSAPP_PROVIDER'
  | 'WHATSAPP_META_BASE_URL'
  | 'WHATSAPP_META_PHONE_NUMBER_ID'
  | 'WHATSAPP_META_TOKEN'
  | 'WHATSAPP_META_APP_SECRET'
  | 'WHATSAPP_META_WEBHOOK_VERIFY_TOKEN'
  | 'WHATSAPP_META_TEMPLATE'
  | 'WHATSAPP_TAQNYAT_TOKEN'
  | 'WHATSAPP_TAQNYAT_TEMPLATE'
  | 'OTP_CHANNEL_FALLBACK'
>;

/**
 * The gateway settings of the chosen SMS and WhatsApp providers. Missing credentials of a chosen
 * provider refuse the start (a code that can never be delivered locks people out silently), and the
 * sender ID is checked as the regulator (CST) registers them: letters and digits, 11 at most.
 */
function pickDelivery(e: DeliveryEnv, smsProvider: string, problems: string[]): DeliveryConfig {
  const need = (provider: string, names: [string, string | undefined][]) => {
    for (const [name, value] of names) if (!value) problems.push(`SMS_PROVIDER=${provider} needs ${name}`);
  };
  const senderId = e.SMS_SENDER_ID;
  if (senderId !== undefined && !/^[A-Za-z0-9]{1,11}$/.test(senderId))
    problems.push(
      `SMS_SENDER_ID must be letters and digits only, at most 11 characters (a registered sender name), got "${senderId}"`,
    );
  const saudi = smsProvider === 'unifonic' || smsProvider === 'taqnyat' || smsProvider === 'msegat';
  if (saudi && senderId === undefined)
    problems.push(`SMS_PROVIDER=${smsProvider} needs SMS_SENDER_ID (the registered sender name)`);
  if (smsProvider === 'unifonic') need('unifonic', [['SMS_UNIFONIC_APP_SID', e.SMS_UNIFONIC_APP_SID]]);
  if (smsProvider === 'taqnyat') need('taqnyat', [['SMS_TAQNYAT_TOKEN', e.SMS_TAQNYAT_TOKEN]]);
  if (smsProvider === 'msegat')
    need('msegat', [
      ['SMS_MSEGAT_USERNAME', e.SMS_MSEGAT_USERNAME],
      ['SMS_MSEGAT_API_KEY', e.SMS_MSEGAT_API_KEY],
    ]);
  if (smsProvider === 'twilio')
    need('twilio', [
      ['SMS_TWILIO_ACCOUNT_SID', e.SMS_TWILIO_ACCOUNT_SID],
      ['SMS_TWILIO_AUTH_TOKEN', e.SMS_TWILIO_AUTH_TOKEN],
      ['SMS_TWILIO_MESSAGE_SERVICE_SID', e.SMS_TWILIO_MESSAGE_SERVICE_SID],
    ]);
  const trim = (u: string) => u.replace(/\/+$/, '');
  let whatsapp: DeliveryConfig['whatsapp'];
  if (e.WHATSAPP_PROVIDER === 'meta') {
    const {
      WHATSAPP_META_PHONE_NUMBER_ID: id,
      WHATSAPP_META_TOKEN: token,
      WHATSAPP_META_TEMPLATE: template,
    } = e;
    for (const [name, value] of [
      ['WHATSAPP_META_PHONE_NUMBER_ID', id],
      ['WHATSAPP_META_TOKEN', token],
      ['WHATSAPP_META_TEMPLATE', template],
    ] as const)
      if (!value) problems.push(`WHATSAPP_PROVIDER=meta needs ${name}`);
    if (id && token && template)
      whatsapp = {
        provider: 'meta',
        baseUrl: trim(e.WHATSAPP_META_BASE_URL),
        phoneNumberId: id,
        token,
        template,
      };
  } else if (e.WHATSAPP_PROVIDER === 'taqnyat') {
    const token = e.WHATSAPP_TAQNYAT_TOKEN ?? e.SMS_TAQNYAT_TOKEN;
    const template = e.WHATSAPP_TAQNYAT_TEMPLATE ?? e.WHATSAPP_META_TEMPLATE;
    if (!token)
      problems.push('WHATSAPP_PROVIDER=taqnyat needs WHATSAPP_TAQNYAT_TOKEN (or SMS_TAQNYAT_TOKEN)');
    if (!template)
      problems.push('WHATSAPP_PROVIDER=taqnyat needs WHATSAPP_TAQNYAT_TEMPLATE (or WHATSAPP_META_TEMPLATE)');
    if (token && template)
      whatsapp = { provider: 'taqnyat', baseUrl: trim(e.SMS_TAQNYAT_BASE_URL), token, template };
  }
  let whatsappWebhook: DeliveryConfig['whatsappWebhook'];
  if (e.WHATSAPP_META_APP_SECRET || e.WHATSAPP_META_WEBHOOK_VERIFY_TOKEN) {
    if (e.WHATSAPP_PROVIDER !== 'meta')
      problems.push(
        'WHATSAPP_META_APP_SECRET and WHATSAPP_META_WEBHOOK_VERIFY_TOKEN need WHATSAPP_PROVIDER=meta',
      );
    else if (!e.WHATSAPP_META_APP_SECRET || !e.WHATSAPP_META_WEBHOOK_VERIFY_TOKEN)
      problems.push(
        'the WhatsApp status webhook needs both WHATSAPP_META_APP_SECRET and WHATSAPP_META_WEBHOOK_VERIFY_TOKEN',
      );
    else
      whatsappWebhook = {
        appSecret: e.WHATSAPP_META_APP_SECRET,
        verifyToken: e.WHATSAPP_META_WEBHOOK_VERIFY_TOKEN,
      };
  }
  const fallback: OtpChannel[] = [];
  for (const raw of e.OTP_CHANNEL_FALLBACK.split(',')) {
    const channel = raw.trim().toLowerCase();
    if (channel === '') continue;
    if (channel !== 'whatsapp' && channel !== 'sms')
      problems.push(`OTP_CHANNEL_FALLBACK: "${channel}" is not a channel (whatsapp, sms)`);
    else if (!fallback.includes(channel)) fallback.push(channel);
  }
  if (fallback[0] !== 'whatsapp')
    problems.push('OTP_CHANNEL_FALLBACK must start with whatsapp (e.g. `whatsapp,sms`)');
  return {
    senderId,
    timeoutMs: e.SMS_PROVIDER_TIMEOUT,
    unifonic: e.SMS_UNIFONIC_APP_SID
      ? { appSid: e.SMS_UNIFONIC_APP_SID, baseUrl: trim(e.SMS_UNIFONIC_BASE_URL) }
      : undefined,
    taqnyat: e.SMS_TAQNYAT_TOKEN
      ? { token: e.SMS_TAQNYAT_TOKEN, baseUrl: trim(e.SMS_TAQNYAT_BASE_URL) }
      : undefined,
    msegat:
      e.SMS_MSEGAT_USERNAME && e.SMS_MSEGAT_API_KEY
        ? {
            userName: e.SMS_MSEGAT_USERNAME,
            apiKey: e.SMS_MSEGAT_API_KEY,
            baseUrl: trim(e.SMS_MSEGAT_BASE_URL),
          }
        : undefined,
    twilio:
      e.SMS_TWILIO_ACCOUNT_SID && e.SMS_TWILIO_AUTH_TOKEN && e.SMS_TWILIO_MESSAGE_SERVICE_SID
        ? {
            accountSid: e.SMS_TWILIO_ACCOUNT_SID,
            authToken: e.SMS_TWILIO_AUTH_TOKEN,
            messageServiceSid: e.SMS_TWILIO_MESSAGE_SERVICE_SID,
            baseUrl: trim(e.SMS_TWILIO_BASE_URL),
          }
        : undefined,
    whatsapp,
    whatsappWebhook,
    fallback,
  };
}

/** SMS_TEST_OTP: `number:code` pairs; a malformed pair refuses the start (a typo must not go unseen). */
function parseTestOtp(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = pair.match(/^\+?([1-9]\d{1,14}):(\d{6,10})$/);
    if (!m)
      throw new ConfigError(
        `SMS_TEST_OTP: "${pair}" is not number:code (E.164 digits, a 6 to 10 digit code)`,
      );
    out.set(m[1] as string, m[2] as string);
  }
  return out;
}

function isLoopbackHost(hostname: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(hostname) || hostname.endsWith('.localhost');
}

/**
 * Why a TRUST_PROXY entry is refused, or undefined when it is `*`, an address or a CIDR range. Names
 * (`nginx`) are refused rather than resolved: resolved once at start-up, a proxy's address could
 * change under a running service (a restarted container) and every visitor would silently share the
 * proxy's rate-limit bucket, the very failure this setting exists to prevent.
 */
/**
 * Why DB_NAMESPACE cannot name our schema, or undefined. It travels unquoted in the connection's
 * search_path and quoted in DDL, so only names both spell alike are accepted: lower-case letters,
 * digits and `_`, not starting with a digit, at most 63 bytes (PostgreSQL's limit); `pg_*` and
 * `information_schema` belong to PostgreSQL, `drizzle` to the bookkeeping of earlier releases.
 */
export function dbNamespaceProblem(value: string): string | undefined {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value))
    return `DB_NAMESPACE: ${JSON.stringify(value)} is not a schema name (lower-case letters, digits and _, not starting with a digit, at most 63)`;
  if (value.startsWith('pg_') || value === 'information_schema')
    return `DB_NAMESPACE: ${JSON.stringify(value)} is reserved by PostgreSQL`;
  // Where releases before namespaces kept drizzle's migration bookkeeping (db/namespace.ts).
  if (value === 'drizzle')
    return 'DB_NAMESPACE: "drizzle" is reserved for the migration bookkeeping of earlier releases';
  return undefined;
}

export function trustProxyProblem(entry: string): string | undefined {
  if (entry === '*') return undefined;
  const [addr = '', bits, extra] = entry.split('/');
  const family = isIP(addr);
  if (family === 0) {
    if (bits === undefined && /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(addr) && /[a-z]/i.test(addr))
      return `TRUST_PROXY: "${entry}" is a name, and names are not resolved (the proxy's address could change after start-up): list its IP address or its network's CIDR range (e.g. 172.16.0.0/12)`;
    return `TRUST_PROXY: "${entry}" is not an IP address or a CIDR range`;
  }
  if (bits === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (extra !== undefined || !/^\d{1,3}$/.test(bits) || Number(bits) > max)
    return `TRUST_PROXY: "${entry}" has an invalid prefix length (0 to ${max} for IPv${family})`;
  return undefined;
}

/** One problem: one line (what `journalctl` or `docker logs` shows first); several: one line each. */
function problemList(header: string, problems: string[]): string {
  if (problems.length === 1) return `${header}: ${problems[0]}`;
  return `${header}:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
}

/** The host part of an email address (MAIL_FROM may be `Name <a@b>`). */
function mailDomain(address: string): string {
  const at = address.replace(/>\s*$/, '').split('@');
  return (at[at.length - 1] ?? '').trim().toLowerCase();
}

/** Reads `.env` from the repository root into process.env (real environment variables win). */
export function loadDotEnv(path = join(repoRoot, '.env')): void {
  if (existsSync(path) && typeof process.loadEnvFile === 'function') process.loadEnvFile(path);
}

/**
 * Parses the runtime contract's environment. Throws ConfigError with every problem listed; in
 * production it also refuses the development defaults that would be unsafe on the internet.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      problemList(
        'Invalid configuration',
        parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      ),
    );
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const siteUrlRaw = e.SITE_URL ?? `http://localhost:${e.PORT}`;
  let siteUrl: URL;
  try {
    siteUrl = new URL(siteUrlRaw);
    if (siteUrl.protocol !== 'http:' && siteUrl.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`Invalid configuration: SITE_URL: must be an http(s) URL, got "${siteUrlRaw}"`);
  }
  if (e.SUPABASE_URL !== undefined) {
    try {
      new URL(e.SUPABASE_URL);
    } catch {
      throw new ConfigError('Invalid configuration: SUPABASE_URL: must be a URL');
    }
  }

  const invalid: string[] = [];
  if (e.SMTP_URL !== undefined) {
    // Checked here because nodemailer, given a URL without a scheme, fails later with a stack that
    // prints the URL, password included. The value is never echoed back.
    let scheme = '';
    try {
      scheme = new URL(e.SMTP_URL).protocol;
    } catch {
      // not a URL at all
    }
    if (scheme !== 'smtp:' && scheme !== 'smtps:')
      invalid.push(
        'SMTP_URL: must be smtp://user:password@host:port or smtps://… (the value is not shown: it may hold a password)',
      );
  }
  const namespaceProblem = dbNamespaceProblem(e.DB_NAMESPACE);
  if (namespaceProblem) invalid.push(namespaceProblem);
  const trustProxy = e.TRUST_PROXY.split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const entry of trustProxy) {
    const problem = trustProxyProblem(entry);
    if (problem) invalid.push(problem);
  }
  const corsOrigins = e.CORS_ALLOWED_ORIGINS.split(',')
    .map((v) => v.trim().replace(/\/$/, ''))
    .filter(Boolean);
  for (const origin of corsOrigins) {
    if (origin === '*') continue;
    let ok = false;
    try {
      const u = new URL(origin);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === origin;
    } catch {
      // not a URL
    }
    if (!ok)
      invalid.push(`CORS_ALLOWED_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path)`);
  }
  // API_PATH: '/' or '/segment[/segment…]'; kept without its trailing slash ('' for the root).
  const apiPath = e.API_PATH.replace(/\/+$/, '');
  if (apiPath !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(apiPath))
    invalid.push(`API_PATH: "${e.API_PATH.slice(0, 100)}" is not / or a path like /auth/v1`);
  let apiExternalUrl: string | undefined;
  if (e.API_EXTERNAL_URL !== undefined) {
    try {
      const u = new URL(e.API_EXTERNAL_URL);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      if (u.search || u.hash) throw new Error('query');
      apiExternalUrl = u.href.replace(/\/+$/, '');
    } catch {
      invalid.push('API_EXTERNAL_URL: must be an http(s) URL without query or fragment');
    }
  }
  // The key material is never echoed: only which key and what is wrong with it.
  let jwtKeys: ConfiguredKey[] = [];
  try {
    if (e.JWT_KEYS !== undefined) jwtKeys = parseJwtKeys(e.JWT_KEYS);
  } catch (err) {
    invalid.push((err as Error).message);
  }
  if (e.JWT_SECRET !== undefined) {
    // 256 bits at least (RFC 7518 §3.2), as Supabase asks of it: a short HMAC secret can be
    // brute-forced offline from a single token.
    if (e.JWT_SECRET.length < 32) invalid.push('JWT_SECRET: must be at least 32 characters');
    else if (e.JWT_KEY_ID !== undefined && jwtKeys.some((k) => k.kid === e.JWT_KEY_ID))
      invalid.push('JWT_KEY_ID: a JWT_KEYS key already has this kid');
    else jwtKeys.push(secretKey(e.JWT_SECRET, e.JWT_KEY_ID, jwtKeys.length === 0));
  }
  if (corsOrigins.includes('*') && corsOrigins.length > 1)
    invalid.push('CORS_ALLOWED_ORIGINS: * already allows every origin; list origins or use * alone');
  if (e.BACKUP_KEY !== undefined && !/^[0-9a-fA-F]{64}$/.test(e.BACKUP_KEY))
    invalid.push('BACKUP_KEY: must be 64 hex characters (openssl rand -hex 32); the value is not shown');
  if (e.SECURITY_CAPTCHA_ENABLED && !e.SECURITY_CAPTCHA_SECRET)
    invalid.push('SECURITY_CAPTCHA_SECRET: CAPTCHA is on but the provider secret is empty');
  if (e.SECURITY_CAPTCHA_VERIFY_URL !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(e.SECURITY_CAPTCHA_VERIFY_URL).protocol);
    } catch {
      // not a URL
    }
    if (!ok) invalid.push('SECURITY_CAPTCHA_VERIFY_URL: must be an http(s) URL');
  }
  const hooks: Partial<Record<HookName, HookTarget>> = {};
  for (const name of HOOK_NAMES) {
    const target = hookTarget(name, e, invalid);
    if (target) hooks[name] = target;
  }
  if (invalid.length > 0) throw new ConfigError(problemList('Invalid configuration', invalid));

  const problems: string[] = [];
  const warnings: string[] = [];
  if (production) {
    if (!e.SMTP_URL)
      problems.push('SMTP_URL is unset: the development mailbox must not be used in production');
    if (e.SITE_URL === undefined)
      problems.push(`SITE_URL is unset: every email link would point at ${siteUrl.origin}`);
    const fromDomain = mailDomain(e.MAIL_FROM);
    if (fromDomain === 'localhost' || fromDomain.endsWith('.localhost'))
      problems.push(
        `MAIL_FROM is ${e.MAIL_FROM}: receiving servers reject or bin mail from @localhost; set your sending address`,
      );
    // A warning, not a refusal: the anon key is public by design (the site hands it to every
    // browser), so the development one opens nothing; a key of your own only tells projects apart.
    // The default ./data lies inside the checkout, where `git clean -fdx` during an upgrade deletes it.
    const dataDir = resolve(repoRoot, e.DATA_DIR);
    if (!e.DATABASE_URL && !e.DATA_DIR.startsWith('memory://') && dataDir.startsWith(`${repoRoot}/`))
      warnings.push(
        `DATA_DIR=${dataDir} is inside the checkout, where \`git clean -fdx\` during an upgrade deletes the database: set DATA_DIR outside it (e.g. /var/lib/namaa)`,
      );
    if (e.ANON_KEY === DEVELOPMENT_ANON_KEY)
      warnings.push(
        'ANON_KEY is the development key (public, the same in every checkout): set a key of your own',
      );
    if (siteUrl.protocol !== 'https:' && !isLoopbackHost(siteUrl.hostname))
      problems.push(`SITE_URL must be https in production (got ${siteUrl.origin})`);
    if (e.SERVICE_ROLE_KEY !== undefined && e.SERVICE_ROLE_KEY.length < 32)
      problems.push('SERVICE_ROLE_KEY must be at least 32 characters');
    if (e.METRICS_TOKEN !== undefined && e.METRICS_TOKEN.length < 32)
      problems.push('METRICS_TOKEN must be at least 32 characters');
    // deploy/namaa.env.example's placeholders are long enough to pass the length checks, and the
    // file is public: a copy started unedited would run with a service key anyone can read.
    for (const [name, value] of Object.entries(e)) {
      if (typeof value === 'string' && /CHANGE-ME/i.test(value))
        problems.push(`${name} still holds the example's CHANGE-ME placeholder: set your own value`);
    }
    if (e.METRICS_ENABLED === true && e.METRICS_TOKEN === undefined)
      warnings.push(
        'METRICS_ENABLED=true without METRICS_TOKEN: /metrics answers anyone who reaches the port; set METRICS_TOKEN or block /metrics at the proxy',
      );
  }
  const smsProvider = e.SMS_PROVIDER || (production ? 'none' : 'dev');
  if (smsProvider === 'webhook' && !e.SMS_WEBHOOK_URL)
    problems.push('SMS_PROVIDER=webhook needs SMS_WEBHOOK_URL');
  if (production && smsProvider === 'dev')
    problems.push('SMS_PROVIDER=dev writes codes to the development mailbox: not for production');
  if (problems.length > 0)
    throw new ConfigError(
      problemList('Refusing to start with unsafe settings (NODE_ENV=production)', problems),
    );
  const socialProblems: string[] = [];
  const socialProviders = pickSocialProviders(e, socialProblems);
  const delivery = pickDelivery(e, smsProvider, socialProblems);
  if (socialProblems.length > 0) throw new ConfigError(problemList('Invalid configuration', socialProblems));

  const resolvePath = (p: string) => (isAbsolute(p) ? p : resolve(repoRoot, p));
  const list = (s: string) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);

  return {
    nodeEnv: e.NODE_ENV,
    production,
    warnings,
    PORT: e.PORT,
    HOST: e.HOST,
    // Without a trailing slash so links can be built by concatenation.
    SITE_URL: siteUrl.href.replace(/\/$/, ''),
    URI_ALLOW_LIST: list(e.URI_ALLOW_LIST),
    // 'memory://' (tests) is PGlite's in-memory marker, not a path: resolving it would put every test on disk.
    DATA_DIR: e.DATA_DIR.startsWith('memory://') ? e.DATA_DIR : resolvePath(e.DATA_DIR),
    PGLITE_FSYNC: e.PGLITE_FSYNC,
    PGLITE_SHARED_BUFFERS: e.PGLITE_SHARED_BUFFERS,
    DATABASE_URL: e.DATABASE_URL,
    DB_NAMESPACE: e.DB_NAMESPACE,
    SMTP_URL: e.SMTP_URL,
    MAIL_FROM: e.MAIL_FROM,
    ANON_KEY: e.ANON_KEY,
    SERVICE_ROLE_KEY: e.SERVICE_ROLE_KEY,
    JWT_ADMIN_ROLES: list(e.JWT_ADMIN_ROLES),
    JWT_EXPIRY: e.JWT_EXPIRY,
    jwtKeys,
    JWT_AUD: e.JWT_AUD,
    JWT_DEFAULT_GROUP_NAME: e.JWT_DEFAULT_GROUP_NAME,
    API_EXTERNAL_URL: apiExternalUrl,
    API_PATH: apiPath,
    API_KEY_REQUIRED: e.API_KEY_REQUIRED,
    MAILER_AUTOCONFIRM: e.MAILER_AUTOCONFIRM,
    MAILER_OTP_EXP: e.MAILER_OTP_EXP,
    MAILER_SECURE_EMAIL_CHANGE_ENABLED: e.MAILER_SECURE_EMAIL_CHANGE_ENABLED,
    SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: e.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION,
    REFRESH_TOKEN_REUSE_INTERVAL: e.REFRESH_TOKEN_REUSE_INTERVAL,
    PASSWORD_MIN_LENGTH: e.PASSWORD_MIN_LENGTH,
    PASSWORD_MAX_LENGTH: 100,
    PASSWORD_REJECT_COMMON: e.PASSWORD_REJECT_COMMON,
    captcha: e.SECURITY_CAPTCHA_ENABLED
      ? {
          provider: e.SECURITY_CAPTCHA_PROVIDER,
          siteKey: e.SECURITY_CAPTCHA_SITE_KEY,
          secret: e.SECURITY_CAPTCHA_SECRET ?? '',
          verifyUrl:
            e.SECURITY_CAPTCHA_VERIFY_URL ??
            (e.SECURITY_CAPTCHA_PROVIDER === 'turnstile'
              ? 'https://challenges.cloudflare.com/turnstile/v0/siteverify'
              : 'https://hcaptcha.com/siteverify'),
          timeoutMs: e.SECURITY_CAPTCHA_TIMEOUT * 1000,
        }
      : undefined,
    hibp: e.PASSWORD_HIBP_ENABLED
      ? {
          apiUrl: e.PASSWORD_HIBP_API_URL.replace(/\/+$/, ''),
          failClosed: e.PASSWORD_HIBP_FAIL_CLOSED,
          userAgent: e.PASSWORD_HIBP_USER_AGENT,
        }
      : undefined,
    EMAIL_RESPONSE_FLOOR_MS: e.EMAIL_RESPONSE_FLOOR_MS,
    TRUST_PROXY: trustProxy,
    HSTS_MAX_AGE: e.HSTS_MAX_AGE,
    HSTS_INCLUDE_SUBDOMAINS: e.HSTS_INCLUDE_SUBDOMAINS,
    CORS_ALLOWED_ORIGINS: corsOrigins.length > 0 ? corsOrigins : ['*'],
    METRICS_ENABLED: e.METRICS_ENABLED ?? (!production || e.METRICS_TOKEN !== undefined),
    METRICS_TOKEN: e.METRICS_TOKEN,
    BACKUP_KEY: e.BACKUP_KEY,
    SUPABASE_URL: e.SUPABASE_URL,
    SITE_DIR: resolvePath(e.SITE_DIR),
    LOG_LEVEL: e.LOG_LEVEL,
    DISABLE_SIGNUP: e.DISABLE_SIGNUP,
    OTP_REVEAL_UNKNOWN_USERS: e.OTP_REVEAL_UNKNOWN_USERS,
    EXTERNAL_ANONYMOUS_USERS_ENABLED: e.EXTERNAL_ANONYMOUS_USERS_ENABLED,
    PRIVACY_NOTICE_VERSION: e.PRIVACY_NOTICE_VERSION,
    residency: {
      region: e.DATA_RESIDENCY,
      allow: e.OUTBOUND_ALLOW.split(',')
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean),
      smsProvider: (env.SMS_PROVIDER ?? '').trim().toLowerCase(),
      whatsappProvider: (env.WHATSAPP_PROVIDER ?? '').trim().toLowerCase(),
    },
    phone: {
      enabled: e.EXTERNAL_PHONE_ENABLED,
      otpExp: e.SMS_OTP_EXP,
      maxFrequency: e.SMS_MAX_FREQUENCY,
      testOtp: parseTestOtp(e.SMS_TEST_OTP),
      autoconfirm: e.SMS_AUTOCONFIRM,
    },
    delivery,
    passkey: {
      enabled: e.PASSKEY_ENABLED,
      maxPerUser: e.PASSKEY_MAX_PER_USER,
      challengeExpiry: e.WEBAUTHN_CHALLENGE_EXPIRY_DURATION,
    },
    mfa: {
      // Unset → derived from SITE_URL when used (see features/mfa/webauthn.ts).
      rpId: e.WEBAUTHN_RP_ID,
      rpOrigins: list(e.WEBAUTHN_RP_ORIGINS),
      rpName: e.WEBAUTHN_RP_DISPLAY_NAME,
      maxEnrolledFactors: e.MFA_MAX_ENROLLED_FACTORS,
      challengeExpiry: e.MFA_CHALLENGE_EXPIRY,
      factorExpiry: e.MFA_FACTOR_EXPIRY,
      phoneOtpExpiry: e.MFA_PHONE_OTP_EXPIRY,
      phoneMaxFrequency: e.MFA_PHONE_MAX_FREQUENCY,
      recoveryCodes: {
        enrollEnabled: e.MFA_RECOVERY_CODES_ENROLL_ENABLED,
        verifyEnabled: e.MFA_RECOVERY_CODES_VERIFY_ENABLED,
        maxFailedAttempts: e.MFA_RECOVERY_CODES_MAX_FAILED_ATTEMPTS,
        lockoutDuration: e.MFA_RECOVERY_CODES_LOCKOUT_DURATION,
      },
      smsProvider: smsProvider as SmsProviderName | 'none',
      smsWebhookUrl: e.SMS_WEBHOOK_URL,
      smsWebhookToken: e.SMS_WEBHOOK_TOKEN,
    },
    social: {
      providers: socialProviders,
      oidcName: e.OIDC_PROVIDER_NAME,
      manualLinking: e.SECURITY_MANUAL_LINKING_ENABLED,
    },
    FLOW_STATE_EXPIRY: e.FLOW_STATE_EXPIRY,
    SESSIONS_TIMEBOX: e.SESSIONS_TIMEBOX,
    SESSIONS_INACTIVITY_TIMEOUT: e.SESSIONS_INACTIVITY_TIMEOUT,
    sweep: {
      interval: e.SWEEP_INTERVAL,
      revokedRefreshTokens: e.RETENTION_REVOKED_REFRESH_TOKENS,
      endedSessions: e.RETENTION_ENDED_SESSIONS,
      expiredTokens: e.RETENTION_EXPIRED_TOKENS,
      auditDays: e.AUDIT_LOG_RETENTION_DAYS,
      unconfirmedUsers: e.RETENTION_UNCONFIRMED_USERS,
    },
    mailer: {
      templates: pickMailSettings(e, 'MAILER_TEMPLATES_'),
      subjects: pickMailSettings(e, 'MAILER_SUBJECTS_'),
    },
    hooks,
    rateLimits: {
      window: e.RATE_LIMIT_WINDOW,
      signinPerIp: e.RATE_LIMIT_SIGNIN_PER_IP,
      signinPerAccount: e.RATE_LIMIT_SIGNIN_PER_ACCOUNT,
      otpPerIp: e.RATE_LIMIT_OTP_PER_IP,
      anonymousPerIp: e.RATE_LIMIT_ANONYMOUS_USERS,
      passkeyPerIp: e.RATE_LIMIT_PASSKEY_PER_IP,
      verifyPerIp: e.RATE_LIMIT_VERIFY_PER_IP,
      verifyCodesPerAddress: e.RATE_LIMIT_VERIFY_CODES_PER_ADDRESS,
      emailPerAddress: e.RATE_LIMIT_EMAIL_PER_ADDRESS,
      emailWindow: e.RATE_LIMIT_EMAIL_WINDOW,
      mfaPerIp: e.RATE_LIMIT_MFA_PER_IP,
      signinBackoffAfter: e.RATE_LIMIT_SIGNIN_BACKOFF_AFTER,
      signinBackoffMax: e.RATE_LIMIT_SIGNIN_BACKOFF_MAX,
      mfaBackoffAfter: e.RATE_LIMIT_MFA_BACKOFF_AFTER,
      mfaBackoffMax: e.RATE_LIMIT_MFA_BACKOFF_MAX,
      emailFloor: e.RATE_LIMIT_EMAIL_FLOOR,
      emailSentPerHour: e.RATE_LIMIT_EMAIL_SENT,
      smsSentPerHour: e.RATE_LIMIT_SMS_SENT,
    },
  };
}
