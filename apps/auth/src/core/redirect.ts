// redirect_to validation, GoTrue's rules: same origin as SITE_URL (any port on loopback), a loopback
// IP literal, or a URI_ALLOW_LIST glob. Anything else falls back to SITE_URL (the caller logs it).
//
// Everything is decided on the WHATWG-parsed URL, never on the raw text: browsers decode `%2E`, map
// `。` to `.`, read `16909060` as 1.2.3.4 and end the host at `?`, so a glob run over the raw string
// (`https://evil%2Ecom?.namaa.example/` "matched" `https://*.namaa.example/**`) validates one URL and
// sends the user — with tokens in the fragment — to another. The parsed URL is also what we hand back.

import { domainToASCII } from 'node:url';
import { compileGlob, type GlobMatcher } from './glob-match.ts';

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

/** An allow-list entry split the way a URL is, so each part is only ever compared with the same part. */
type UrlGlob = { scheme: GlobMatcher; host: GlobMatcher; path: GlobMatcher };

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
    scheme: compileGlob(glob.slice(0, sep).toLowerCase()),
    // Only dots and the port colon separate here, and the subject is `url.host` alone, so a host
    // wildcard can never be satisfied by a character of the path, query, userinfo or fragment.
    host: compileGlob(asciiHostGlob(hostGlob), '.:'),
    path: compileGlob(pathGlob),
  };
}

type CompiledEntry = { parts: UrlGlob } | { whole: GlobMatcher };

/** Allow-list entries come from configuration, so compiling each distinct one once is bounded. */
const compiled = new Map<string, CompiledEntry>();

function compileEntry(glob: string): CompiledEntry {
  let entry = compiled.get(glob);
  if (!entry) {
    const parts = parseUrlGlob(glob);
    entry = parts ? { parts } : { whole: compileGlob(glob) };
    compiled.set(glob, entry);
  }
  return entry;
}

function matchesGlob(url: URL, glob: string): boolean {
  const entry = compileEntry(glob);
  // An entry like `myapp:callback` can only describe a URL that has no host at all.
  if ('whole' in entry) return url.host === '' && entry.whole(url.href.split('#')[0] as string);
  return (
    entry.parts.scheme(url.protocol.slice(0, -1)) &&
    entry.parts.host(url.host) &&
    entry.parts.path(url.pathname + url.search)
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

/**
 * The longest redirect_to we look at. Real callback URLs are far shorter; the glob match costs
 * O(length × pattern), so the cap keeps even that bounded. Longer candidates are refused with GoTrue's
 * 400 by the HTTP layer (see core/http/redirect.ts); here they are simply never allowed.
 */
export const MAX_REDIRECT_URL_LENGTH = 2048;

export type RedirectPolicy = { siteUrl: string; allowList: string[]; allowLoopback: boolean };

/** The normalised URL to redirect to when the candidate is allowed, otherwise undefined. */
export function allowedRedirect(candidate: string, policy: RedirectPolicy): string | undefined {
  if (candidate.length > MAX_REDIRECT_URL_LENGTH) return undefined;
  const url = parseCandidate(candidate);
  if (!url || REFUSED_SCHEMES.has(url.protocol)) return undefined;
  // Percent-encoding can make the parsed URL several times longer than the text that was sent.
  if (url.href.length > MAX_REDIRECT_URL_LENGTH) return undefined;
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
