// redirect_to validation, GoTrue's rules: same origin as SITE_URL (any port on loopback), a loopback
// IP literal, or a URI_ALLOW_LIST glob. Anything else falls back to SITE_URL (the caller logs it).
//
// Everything is decided on the WHATWG-parsed URL, never on the raw text: browsers decode `%2E`, map
// `。` to `.`, read `16909060` as 1.2.3.4 and end the host at `?`, so a glob run over the raw string
// (`https://evil%2Ecom?.namaa.example/` "matched" `https://*.namaa.example/**`) validates one URL and
// sends the user — with tokens in the fragment — to another. The parsed URL is also what we hand back.

import { domainToASCII } from 'node:url';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

// Custom app schemes (`myapp://**`) are a documented GoTrue use of URI_ALLOW_LIST, so other schemes are
// not refused wholesale; these ones run script, read local data or are no place to land a session.
const REFUSED_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'filesystem:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);

function isLoopbackIpLiteral(hostname: string): boolean {
  return hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * Glob → RegExp: `*` and `?` stay within one host label / path segment, `**` crosses them.
 * `separators` are the characters a single `*` cannot cross (GoTrue's gobwas/glob uses `.` and `/`).
 */
export function globToRegExp(glob: string, separators = './'): RegExp {
  const notSeparator = `[^${separators.replace(/[\]\\^-]/g, '\\$&')}]`;
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += `${notSeparator}*`;
    } else if (ch === '?') re += notSeparator;
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** An allow-list entry split the way a URL is, so each part is only ever compared with the same part. */
type UrlGlob = { scheme: RegExp; host: RegExp; path: RegExp };

/** Literal labels go to punycode like `url.host` does, so `*.bücher.example` still matches. */
function asciiHostGlob(hostGlob: string): string {
  return hostGlob
    .toLowerCase()
    .split('.')
    .map((label) =>
      /[*?]/.test(label) || /^[\x20-\x7e]*$/.test(label) ? label : domainToASCII(label) || label,
    )
    .join('.');
}

/** `scheme://host/path` → its parts; undefined for an entry without `://`, which has no host part. */
function parseUrlGlob(glob: string): UrlGlob | undefined {
  const sep = glob.indexOf('://');
  if (sep <= 0) return undefined;
  const rest = glob.slice(sep + 3);
  const slash = rest.indexOf('/');
  const hostGlob = slash === -1 ? rest : rest.slice(0, slash);
  let pathGlob = slash === -1 ? '' : rest.slice(slash);
  // In GoTrue `myapp://**` and `https://**` also cover any path: a trailing `**` ran on into it.
  if (!pathGlob && hostGlob.endsWith('**')) pathGlob = '**';
  return {
    scheme: globToRegExp(glob.slice(0, sep).toLowerCase()),
    // Only dots and the port colon separate here, and the subject is `url.host` alone, so a host
    // wildcard can never be satisfied by a character of the path, query, userinfo or fragment.
    host: globToRegExp(asciiHostGlob(hostGlob), '.:'),
    path: globToRegExp(pathGlob),
  };
}

function matchesGlob(url: URL, glob: string): boolean {
  const parts = parseUrlGlob(glob);
  // An entry like `myapp:callback` can only describe a URL that has no host at all.
  if (!parts) return url.host === '' && globToRegExp(glob).test(url.href.split('#')[0] as string);
  return (
    parts.scheme.test(url.protocol.slice(0, -1)) &&
    parts.host.test(url.host) &&
    parts.path.test(url.pathname + url.search)
  );
}

function isSameSiteOrLoopback(url: URL, policy: RedirectPolicy): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const site = new URL(policy.siteUrl);
  if (url.protocol === site.protocol && url.hostname === site.hostname) {
    if (url.port === site.port || LOOPBACK_HOSTS.has(url.hostname)) return true;
  }
  return policy.allowLoopback && isLoopbackIpLiteral(url.hostname);
}

function parseCandidate(candidate: string): URL | undefined {
  // Control characters (CRLF injection), backslashes and whitespace never belong in a redirect.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is exactly what we reject
  if (/[\u0000-\u001f\u007f\\\s]/.test(candidate)) return undefined;
  try {
    return new URL(candidate);
  } catch {
    return undefined;
  }
}

export type RedirectPolicy = { siteUrl: string; allowList: string[]; allowLoopback: boolean };

/** The normalised URL to redirect to when the candidate is allowed, otherwise undefined. */
export function allowedRedirect(candidate: string, policy: RedirectPolicy): string | undefined {
  const url = parseCandidate(candidate);
  if (!url || REFUSED_SCHEMES.has(url.protocol)) return undefined;
  // `https://app.namaa.example@evil.example/` reads as the allowed host to a human only.
  if (url.username || url.password) return undefined;
  if (isSameSiteOrLoopback(url, policy) || policy.allowList.some((glob) => matchesGlob(url, glob)))
    return url.href;
  return undefined;
}

export function isRedirectAllowed(candidate: string, policy: RedirectPolicy): boolean {
  return allowedRedirect(candidate, policy) !== undefined;
}

/**
 * The redirect to use: the parsed, normalised candidate when allowed (so the browser gets exactly the
 * URL that was checked), otherwise SITE_URL (`fellBack` tells the caller to log).
 */
export function resolveRedirect(
  candidate: string | undefined,
  policy: RedirectPolicy,
): { url: string; fellBack: boolean } {
  if (!candidate) return { url: policy.siteUrl, fellBack: false };
  const allowed = allowedRedirect(candidate, policy);
  if (allowed !== undefined) return { url: allowed, fellBack: false };
  return { url: policy.siteUrl, fellBack: true };
}
