import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

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

const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: int(0, 65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  SITE_URL: optionalString,
  URI_ALLOW_LIST: z.string().default(''),
  DATA_DIR: z.string().default('./data'),
  PGLITE_FSYNC: bool.default(true),
  DATABASE_URL: optionalString,
  SMTP_URL: optionalString,
  MAIL_FROM: z.string().default('no-reply@localhost'),
  ANON_KEY: z.string().min(1).default(DEVELOPMENT_ANON_KEY),
  SERVICE_ROLE_KEY: optionalString,
  // Roles whose JWT may call the admin API (GoTrue's GOTRUE_JWT_ADMIN_ROLES), besides SERVICE_ROLE_KEY.
  JWT_ADMIN_ROLES: z.string().default('service_role,supabase_admin'),
  JWT_EXPIRY: int(1, 60 * 60 * 24 * 7).default(3600),
  MAILER_AUTOCONFIRM: bool.default(false),
  MAILER_OTP_EXP: int(60, 86400).default(3600),
  // GoTrue's default: an email change needs the link sent to the current address AND the one sent to
  // the new address, so a stolen session alone cannot move the account to an attacker's mailbox.
  MAILER_SECURE_EMAIL_CHANGE_ENABLED: bool.default(true),
  // A password change from a session older than 24 h needs the code mailed by GET /reauthenticate
  // (GoTrue's rule). On by default, unlike GoTrue: a token stolen from a long-lived session must not
  // be enough to change the password (ASVS 6.2.3). A recovery link's session is fresh, so resetting
  // a forgotten password needs no extra code.
  SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: bool.default(true),
  REFRESH_TOKEN_REUSE_INTERVAL: int(0, 3600).default(10),
  PASSWORD_MIN_LENGTH: int(6, 100).default(6),
  // The bundled common-password list (plus own email / brand name): on unless explicitly turned off.
  PASSWORD_REJECT_COMMON: bool.default(true),
  // Sign-up, recover and resend answer no sooner than this (ms), so timing does not reveal accounts.
  EMAIL_RESPONSE_FLOOR_MS: int(0, 5000).default(300),
  TRUST_PROXY: z.string().default(''),
  SUPABASE_URL: optionalString,
  SITE_DIR: z.string().default('apps/web/build/client'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DISABLE_SIGNUP: bool.default(false),
  // Fixed-window rate limits (count per RATE_LIMIT_WINDOW seconds; 0 turns one off). Defaults follow
  // GoTrue's (30 per 5 min for OTP/verify/sign-up per IP) with a separate sign-in bucket: a refresh is
  // never rate limited, because supabase-js signs the user out on a 429 during refresh. The test
  // harness raises them; the rate-limit suites set their own low values.
  RATE_LIMIT_WINDOW: int(1, 86400).default(300),
  RATE_LIMIT_SIGNIN_PER_IP: int(0, 1_000_000).default(150),
  RATE_LIMIT_SIGNIN_PER_ACCOUNT: int(0, 1_000_000).default(100),
  RATE_LIMIT_OTP_PER_IP: int(0, 1_000_000).default(30),
  RATE_LIMIT_VERIFY_PER_IP: int(0, 1_000_000).default(30),
  // 6-digit email codes entered per address per hour, from anywhere: what bounds guessing a code
  // (10⁶ of them) by many IPs at once; re-mailing a code does not reset it. The link in the same
  // mail is not counted (its token is unguessable), so an attacker burning this budget cannot stop
  // the owner from confirming or recovering.
  RATE_LIMIT_VERIFY_CODES_PER_ADDRESS: int(0, 1_000_000).default(10),
  RATE_LIMIT_MFA_PER_IP: int(0, 1_000_000).default(75),
  // Failed sign-ins per (account, client network): this many are free, then each further one waits
  // 1, 2, 4 … seconds up to RATE_LIMIT_SIGNIN_BACKOFF_MAX; a success or 2 quiet days reset it.
  RATE_LIMIT_SIGNIN_BACKOFF_AFTER: int(0, 1000).default(5),
  RATE_LIMIT_SIGNIN_BACKOFF_MAX: int(1, 86400).default(900),
  // Failed MFA verifications per factor (any network): this many are free, then each further attempt
  // waits 1, 2, 4 … seconds up to RATE_LIMIT_MFA_BACKOFF_MAX; the owner is mailed once per streak, and
  // a success or 2 quiet days reset it. 0 turns the back-off off. (GoTrue leaves this to a hook.)
  RATE_LIMIT_MFA_BACKOFF_AFTER: int(0, 1000).default(5),
  RATE_LIMIT_MFA_BACKOFF_MAX: int(1, 86400).default(3600),
  // Outgoing mail: per address (per RATE_LIMIT_EMAIL_WINDOW), a floor between two messages to one
  // address, and a global quota per hour. Counted alike for existing and unknown addresses.
  RATE_LIMIT_EMAIL_PER_ADDRESS: int(0, 1_000_000).default(10),
  RATE_LIMIT_EMAIL_WINDOW: int(1, 86400).default(3600),
  RATE_LIMIT_EMAIL_FLOOR: int(0, 86400).default(60),
  RATE_LIMIT_EMAIL_SENT: int(0, 1_000_000).default(200),
  RATE_LIMIT_SMS_SENT: int(0, 1_000_000).default(30),
  // MFA (issue 4). WebAuthn relying party: id = SITE_URL's hostname, origins = SITE_URL's origin.
  WEBAUTHN_RP_ID: optionalString,
  WEBAUTHN_RP_ORIGINS: z.string().default(''),
  WEBAUTHN_RP_DISPLAY_NAME: z.string().default('Namaa'),
  MFA_MAX_ENROLLED_FACTORS: int(1, 100).default(10),
  MFA_CHALLENGE_EXPIRY: int(10, 3600).default(300),
  // An unverified factor (an enrolment in progress) lives this long after its creation or last
  // challenge; then it is refused and swept (GoTrue's MFA_FACTOR_EXPIRY_DURATION, 300 s).
  MFA_FACTOR_EXPIRY: int(1, 86400).default(300),
  MFA_PHONE_OTP_EXPIRY: int(10, 3600).default(300),
  MFA_PHONE_MAX_FREQUENCY: int(0, 3600).default(60),
  // SMS for the phone factor: 'dev' writes to the development mailbox, 'webhook' POSTs to SMS_WEBHOOK_URL.
  SMS_PROVIDER: z.enum(['dev', 'webhook', '']).default(''),
  SMS_WEBHOOK_URL: optionalString,
  SMS_WEBHOOK_TOKEN: optionalString,
  // PKCE flow states (code_challenge on sign-up, recovery, email change) live this long.
  FLOW_STATE_EXPIRY: int(10, 86400).default(300),
  // GoTrue's session limits, seconds (0 = none, GoTrue's default): a session ends this long after it
  // began, or after going this long without a refresh; its refresh token then answers
  // 400 session_expired and supabase-js signs the user out.
  SESSIONS_TIMEBOX: int(0, 10 * 365 * 86400).default(0),
  SESSIONS_INACTIVITY_TIMEOUT: int(0, 10 * 365 * 86400).default(0),
});

export type Config = {
  nodeEnv: string;
  production: boolean;
  PORT: number;
  HOST: string;
  SITE_URL: string;
  URI_ALLOW_LIST: string[];
  DATA_DIR: string;
  /** On-disk PGlite flushes every commit to the disk (db/pglite-durable.ts). */
  PGLITE_FSYNC: boolean;
  DATABASE_URL: string | undefined;
  SMTP_URL: string | undefined;
  MAIL_FROM: string;
  ANON_KEY: string;
  SERVICE_ROLE_KEY: string | undefined;
  /** Roles whose signed JWT is an admin credential (the admin API). */
  JWT_ADMIN_ROLES: string[];
  JWT_EXPIRY: number;
  MAILER_AUTOCONFIRM: boolean;
  MAILER_OTP_EXP: number;
  MAILER_SECURE_EMAIL_CHANGE_ENABLED: boolean;
  SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: boolean;
  REFRESH_TOKEN_REUSE_INTERVAL: number;
  PASSWORD_MIN_LENGTH: number;
  PASSWORD_MAX_LENGTH: number;
  PASSWORD_REJECT_COMMON: boolean;
  EMAIL_RESPONSE_FLOOR_MS: number;
  TRUST_PROXY: string[];
  SUPABASE_URL: string | undefined;
  SITE_DIR: string;
  LOG_LEVEL: string;
  DISABLE_SIGNUP: boolean;
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
    /** 'none' when no SMS provider is configured in production (phone factors then disabled). */
    smsProvider: 'dev' | 'webhook' | 'none';
    smsWebhookUrl: string | undefined;
    smsWebhookToken: string | undefined;
  };
  FLOW_STATE_EXPIRY: number;
  SESSIONS_TIMEBOX: number;
  SESSIONS_INACTIVITY_TIMEOUT: number;
  rateLimits: {
    window: number;
    signinPerIp: number;
    signinPerAccount: number;
    otpPerIp: number;
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

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function isLoopbackHost(hostname: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(hostname) || hostname.endsWith('.localhost');
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
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const siteUrlRaw = e.SITE_URL ?? `http://localhost:${e.PORT}`;
  let siteUrl: URL;
  try {
    siteUrl = new URL(siteUrlRaw);
    if (siteUrl.protocol !== 'http:' && siteUrl.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`Invalid configuration:\n  SITE_URL: must be an http(s) URL, got "${siteUrlRaw}"`);
  }
  if (e.SUPABASE_URL !== undefined) {
    try {
      new URL(e.SUPABASE_URL);
    } catch {
      throw new ConfigError('Invalid configuration:\n  SUPABASE_URL: must be a URL');
    }
  }

  const problems: string[] = [];
  if (production) {
    if (!e.SMTP_URL)
      problems.push('SMTP_URL is unset: the development mailbox must not be used in production');
    if (siteUrl.protocol !== 'https:' && !isLoopbackHost(siteUrl.hostname))
      problems.push(`SITE_URL must be https in production (got ${siteUrl.origin})`);
    if (e.SERVICE_ROLE_KEY !== undefined && e.SERVICE_ROLE_KEY.length < 32)
      problems.push('SERVICE_ROLE_KEY must be at least 32 characters');
  }
  const smsProvider = e.SMS_PROVIDER || (production ? 'none' : 'dev');
  if (smsProvider === 'webhook' && !e.SMS_WEBHOOK_URL)
    problems.push('SMS_PROVIDER=webhook needs SMS_WEBHOOK_URL');
  if (production && smsProvider === 'dev')
    problems.push('SMS_PROVIDER=dev writes codes to the development mailbox: not for production');
  if (problems.length > 0)
    throw new ConfigError(
      `Refusing to start with unsafe settings (NODE_ENV=production):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );

  const resolvePath = (p: string) => (isAbsolute(p) ? p : resolve(repoRoot, p));
  const list = (s: string) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);

  return {
    nodeEnv: e.NODE_ENV,
    production,
    PORT: e.PORT,
    HOST: e.HOST,
    // Without a trailing slash so links can be built by concatenation.
    SITE_URL: siteUrl.href.replace(/\/$/, ''),
    URI_ALLOW_LIST: list(e.URI_ALLOW_LIST),
    // 'memory://' (tests) is PGlite's in-memory marker, not a path: resolving it would put every test on disk.
    DATA_DIR: e.DATA_DIR.startsWith('memory://') ? e.DATA_DIR : resolvePath(e.DATA_DIR),
    PGLITE_FSYNC: e.PGLITE_FSYNC,
    DATABASE_URL: e.DATABASE_URL,
    SMTP_URL: e.SMTP_URL,
    MAIL_FROM: e.MAIL_FROM,
    ANON_KEY: e.ANON_KEY,
    SERVICE_ROLE_KEY: e.SERVICE_ROLE_KEY,
    JWT_ADMIN_ROLES: list(e.JWT_ADMIN_ROLES),
    JWT_EXPIRY: e.JWT_EXPIRY,
    MAILER_AUTOCONFIRM: e.MAILER_AUTOCONFIRM,
    MAILER_OTP_EXP: e.MAILER_OTP_EXP,
    MAILER_SECURE_EMAIL_CHANGE_ENABLED: e.MAILER_SECURE_EMAIL_CHANGE_ENABLED,
    SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: e.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION,
    REFRESH_TOKEN_REUSE_INTERVAL: e.REFRESH_TOKEN_REUSE_INTERVAL,
    PASSWORD_MIN_LENGTH: e.PASSWORD_MIN_LENGTH,
    PASSWORD_MAX_LENGTH: 100,
    PASSWORD_REJECT_COMMON: e.PASSWORD_REJECT_COMMON,
    EMAIL_RESPONSE_FLOOR_MS: e.EMAIL_RESPONSE_FLOOR_MS,
    TRUST_PROXY: list(e.TRUST_PROXY),
    SUPABASE_URL: e.SUPABASE_URL,
    SITE_DIR: resolvePath(e.SITE_DIR),
    LOG_LEVEL: e.LOG_LEVEL,
    DISABLE_SIGNUP: e.DISABLE_SIGNUP,
    mfa: {
      // Unset → derived from SITE_URL when used (see domain/mfa-webauthn.ts).
      rpId: e.WEBAUTHN_RP_ID,
      rpOrigins: list(e.WEBAUTHN_RP_ORIGINS),
      rpName: e.WEBAUTHN_RP_DISPLAY_NAME,
      maxEnrolledFactors: e.MFA_MAX_ENROLLED_FACTORS,
      challengeExpiry: e.MFA_CHALLENGE_EXPIRY,
      factorExpiry: e.MFA_FACTOR_EXPIRY,
      phoneOtpExpiry: e.MFA_PHONE_OTP_EXPIRY,
      phoneMaxFrequency: e.MFA_PHONE_MAX_FREQUENCY,
      smsProvider: smsProvider as 'dev' | 'webhook' | 'none',
      smsWebhookUrl: e.SMS_WEBHOOK_URL,
      smsWebhookToken: e.SMS_WEBHOOK_TOKEN,
    },
    FLOW_STATE_EXPIRY: e.FLOW_STATE_EXPIRY,
    SESSIONS_TIMEBOX: e.SESSIONS_TIMEBOX,
    SESSIONS_INACTIVITY_TIMEOUT: e.SESSIONS_INACTIVITY_TIMEOUT,
    rateLimits: {
      window: e.RATE_LIMIT_WINDOW,
      signinPerIp: e.RATE_LIMIT_SIGNIN_PER_IP,
      signinPerAccount: e.RATE_LIMIT_SIGNIN_PER_ACCOUNT,
      otpPerIp: e.RATE_LIMIT_OTP_PER_IP,
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
