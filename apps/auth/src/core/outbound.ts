// Every call the service can make to another server, in one table, and the data-residency rule
// (DATA_RESIDENCY, PDPL's cross-border transfer) over it. The README's "Every outbound call" list is
// rendered from OUTBOUND_CALLS (`npm run docs:settings`; test/core/outbound.test.ts fails when the
// two differ), so a new outbound call is one more row here or the list is wrong.
//
// Where a call goes decides its fate with DATA_RESIDENCY=sa:
// - foreign: a service run outside Saudi Arabia. Start-up is refused, naming the setting, unless
//   the call is allowed by its name in OUTBOUND_ALLOW.
// - in-country: a Saudi provider. Allowed.
// - operator: a host the operator chose (SMTP relay, webhook and hook URLs, a self-hosted mirror, a
//   custom OpenID issuer). The service cannot know where that host is; configuring it is the
//   operator's declaration that it is acceptable. Each one is listed in the start-up log
//   ("outbound endpoints") so the declaration is on record and reviewable.
import type { Config } from '../config.ts';
import { StartupError } from './startup-error.ts';

export type OutboundWhere = 'foreign' | 'in-country' | 'operator';

export type OutboundCall = {
  /** The name OUTBOUND_ALLOW knows it by. */
  name: string;
  /** What is sent, and when. */
  what: string;
  /** The setting that turns it on. */
  setting: string;
  /** Where it goes unless its setting points it elsewhere. */
  where: OutboundWhere;
  destination: string;
  /**
   * Whether this configuration makes the call: undefined when not; else the setting as the refusal
   * names it, where it goes in this configuration (an operator URL overrides `where`), and the target.
   */
  active(config: Config): { setting: string; where: OutboundWhere; target?: string } | undefined;
};

const hostOf = (url: string | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

const smsProvider = (name: string, where: OutboundWhere, destination: string): OutboundCall => ({
  name,
  what: 'SMS codes (sign-in, phone sign-up and change, MFA): the phone number and the message',
  setting: `SMS_PROVIDER=${name}`,
  where,
  destination,
  active: (c) => (c.residency.smsProvider === name ? { setting: `SMS_PROVIDER=${name}`, where } : undefined),
});

const whatsappProvider = (provider: string, where: OutboundWhere, destination: string): OutboundCall => ({
  name: `whatsapp-${provider}`,
  what: 'WhatsApp codes: the phone number and the code',
  setting: `WHATSAPP_PROVIDER=${provider}`,
  where,
  destination,
  active: (c) =>
    c.residency.whatsappProvider === provider
      ? { setting: `WHATSAPP_PROVIDER=${provider}`, where }
      : undefined,
});

const DEFAULT_HIBP_HOST = 'api.pwnedpasswords.com';
const FOREIGN_CAPTCHA_HOSTS = new Set(['hcaptcha.com', 'api.hcaptcha.com', 'challenges.cloudflare.com']);

const social = (
  name: 'google' | 'apple' | 'azure' | 'github' | 'x',
  label: string,
  defaultHosts: string[],
): OutboundCall => {
  const setting = `EXTERNAL_${name.toUpperCase()}_ENABLED`;
  return {
    name,
    what: `sign-in with ${label}: the authorization code exchange and the user's profile`,
    setting,
    where: 'foreign',
    destination: label,
    active: (c) => {
      const p = c.social.providers[name];
      if (!p.enabled) return undefined;
      // GitHub Enterprise (EXTERNAL_GITHUB_URL) runs on the operator's own server; an X relay
      // (EXTERNAL_X_URL) still hands the data to X, so X stays foreign.
      const host = hostOf(p.url);
      const where = host && !defaultHosts.includes(host) && name === 'github' ? 'operator' : 'foreign';
      return { setting: `${setting}=true`, where, target: host };
    },
  };
};

/** Every outbound call the service can make. */
export const OUTBOUND_CALLS: OutboundCall[] = [
  smsProvider('twilio', 'foreign', 'Twilio (United States)'),
  smsProvider('unifonic', 'in-country', 'Unifonic (Saudi Arabia)'),
  smsProvider('taqnyat', 'in-country', 'Taqnyat (Saudi Arabia)'),
  smsProvider('msegat', 'in-country', 'Msegat (Saudi Arabia)'),
  {
    name: 'sms-webhook',
    what: 'SMS codes as `{to, body, kind}`',
    setting: 'SMS_PROVIDER=webhook',
    where: 'operator',
    destination: '`SMS_WEBHOOK_URL`',
    active: (c) =>
      c.mfa.smsProvider === 'webhook'
        ? { setting: 'SMS_WEBHOOK_URL', where: 'operator', target: hostOf(c.mfa.smsWebhookUrl) }
        : undefined,
  },
  whatsappProvider('meta', 'foreign', 'Meta WhatsApp Cloud API (United States)'),
  whatsappProvider('taqnyat', 'in-country', 'Taqnyat WhatsApp (Saudi Arabia)'),
  {
    name: 'hibp',
    what: "breached-password check: the first 5 hex digits of the password's SHA-1 (never the password)",
    setting: 'PASSWORD_HIBP_ENABLED',
    where: 'foreign',
    destination: "Have I Been Pwned's range API, or a mirror at `PASSWORD_HIBP_API_URL`",
    active: (c) => {
      if (!c.hibp) return undefined;
      const host = hostOf(c.hibp.apiUrl);
      return {
        setting: 'PASSWORD_HIBP_ENABLED=true',
        where: host === DEFAULT_HIBP_HOST ? 'foreign' : 'operator',
        target: host,
      };
    },
  },
  {
    name: 'captcha',
    what: "CAPTCHA verification: the visitor's token and IP address",
    setting: 'SECURITY_CAPTCHA_ENABLED',
    where: 'foreign',
    destination: 'hCaptcha or Cloudflare Turnstile, or a verifier at `SECURITY_CAPTCHA_VERIFY_URL`',
    active: (c) => {
      if (!c.captcha) return undefined;
      const host = hostOf(c.captcha.verifyUrl);
      return {
        setting: 'SECURITY_CAPTCHA_ENABLED=true',
        where: host && FOREIGN_CAPTCHA_HOSTS.has(host) ? 'foreign' : 'operator',
        target: host,
      };
    },
  },
  social('google', 'Google', ['accounts.google.com']),
  social('apple', 'Apple', ['appleid.apple.com']),
  social('azure', 'Microsoft (Entra ID)', []),
  social('github', 'GitHub', ['github.com']),
  social('x', 'X', []),
  {
    name: 'oidc',
    what: "sign-in with a custom OpenID Connect provider: the code exchange and the user's profile",
    setting: 'EXTERNAL_OIDC_ENABLED',
    where: 'operator',
    destination: '`EXTERNAL_OIDC_URL`',
    active: (c) =>
      c.social.providers.oidc.enabled
        ? { setting: 'EXTERNAL_OIDC_URL', where: 'operator', target: hostOf(c.social.providers.oidc.url) }
        : undefined,
  },
  {
    name: 'hooks',
    what: 'HTTP auth hooks: the hook payload (the user, the claims, the message to deliver)',
    setting: 'HOOK_*_URI (http/https)',
    where: 'operator',
    destination: 'each `HOOK_<NAME>_URI`',
    active: (c) => {
      const http = Object.entries(c.hooks).filter(([, t]) => t?.kind === 'http');
      if (http.length === 0) return undefined;
      return {
        setting: http.map(([n]) => `HOOK_${n}_URI`).join(', '),
        where: 'operator',
        target: [...new Set(http.map(([, t]) => hostOf(t?.uri)))].join(', '),
      };
    },
  },
  {
    name: 'smtp',
    what: 'auth mail (links, codes, notices): the address and the message',
    setting: 'SMTP_URL',
    where: 'operator',
    destination: 'the relay at `SMTP_URL`',
    active: (c) =>
      c.SMTP_URL ? { setting: 'SMTP_URL', where: 'operator', target: hostOf(c.SMTP_URL) } : undefined,
  },
  {
    name: 'mail-templates',
    what: "the operator's mail templates, fetched once at start-up (nothing about users is sent)",
    setting: 'MAILER_TEMPLATES_* (http/https)',
    where: 'operator',
    destination: 'each `MAILER_TEMPLATES_*` URL',
    active: (c) => {
      const urls = Object.values(c.mailer.templates).filter((v) => v && /^https?:\/\//i.test(v));
      if (urls.length === 0) return undefined;
      return {
        setting: 'MAILER_TEMPLATES_*',
        where: 'operator',
        target: [...new Set(urls.map(hostOf))].join(', '),
      };
    },
  },
];

export type OutboundReport = {
  /** Active foreign calls the residency rule refuses, as the setting names them. */
  refused: { name: string; setting: string; destination: string }[];
  /** Active calls to hosts the operator configured (logged at start-up). */
  operator: { name: string; setting: string; target: string | undefined }[];
  /** OUTBOUND_ALLOW names that are no outbound call (a typo must not pass silently). */
  unknownAllowed: string[];
};

/** What this configuration calls, judged by its residency rule. */
export function reviewOutbound(config: Config, calls: OutboundCall[] = OUTBOUND_CALLS): OutboundReport {
  const { region, allow } = config.residency;
  const known = new Set(calls.map((c) => c.name));
  const report: OutboundReport = {
    refused: [],
    operator: [],
    unknownAllowed: allow.filter((n) => !known.has(n)),
  };
  for (const call of calls) {
    const active = call.active(config);
    if (!active) continue;
    if (active.where === 'operator')
      report.operator.push({ name: call.name, setting: active.setting, target: active.target });
    else if (active.where === 'foreign' && region !== '' && !allow.includes(call.name))
      report.refused.push({ name: call.name, setting: active.setting, destination: call.destination });
  }
  return report;
}

/**
 * Start-up: with DATA_RESIDENCY set, refuses (StartupError, one line naming the settings) a
 * configuration that would send personal data abroad without OUTBOUND_ALLOW naming it. Returns the
 * report, whose operator endpoints the caller logs.
 */
export function assertResidency(config: Config): OutboundReport {
  const report = reviewOutbound(config);
  if (config.residency.region === '') return report;
  if (report.unknownAllowed.length > 0)
    throw new StartupError(
      `OUTBOUND_ALLOW: unknown outbound call ${report.unknownAllowed.join(', ')} (known: ${OUTBOUND_CALLS.map((c) => c.name).join(', ')})`,
    );
  if (report.refused.length > 0) {
    const each = report.refused.map((r) => `${r.setting} (${r.name}: ${r.destination})`).join('; ');
    const names = report.refused.map((r) => r.name).join(',');
    throw new StartupError(
      `DATA_RESIDENCY=${config.residency.region} refuses outbound calls outside the country: ${each}. Turn it off, choose an in-country provider, or allow it by name: OUTBOUND_ALLOW=${names}`,
    );
  }
  return report;
}

export const OUTBOUND_START =
  '<!-- outbound:start (generated by `npm run docs:settings` from apps/auth/src/core/outbound.ts) -->';
export const OUTBOUND_END = '<!-- outbound:end -->';

const WHERE_TEXT: Record<OutboundWhere, string> = {
  foreign: 'outside Saudi Arabia',
  'in-country': 'Saudi Arabia',
  operator: "the operator's host",
};

/** The README's "Every outbound call" table. */
export function renderOutboundDocs(calls: OutboundCall[] = OUTBOUND_CALLS): string {
  const cell = (s: string) => s.replaceAll('|', '\\|');
  return [
    OUTBOUND_START,
    '',
    '| name (`OUTBOUND_ALLOW`) | turned on by | goes to | where | what is sent |',
    '|---|---|---|---|---|',
    ...calls.map(
      (c) =>
        `| \`${c.name}\` | \`${cell(c.setting)}\` | ${cell(c.destination)} | ${WHERE_TEXT[c.where]} | ${cell(c.what)} |`,
    ),
    '',
    OUTBOUND_END,
  ].join('\n');
}

/** The README with its outbound block replaced by a freshly rendered one. */
export function withOutboundDocs(readme: string): string {
  const start = readme.indexOf(OUTBOUND_START);
  const end = readme.indexOf(OUTBOUND_END);
  if (start < 0 || end < start) throw new Error('README.md has no outbound-call markers');
  return readme.slice(0, start) + renderOutboundDocs() + readme.slice(end + OUTBOUND_END.length);
}
