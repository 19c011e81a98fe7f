// redirect_to validation, GoTrue's rules: same origin as SITE_URL (any port on loopback), a loopback
// IP literal, or a URI_ALLOW_LIST glob. Anything else falls back to SITE_URL (the caller logs it).

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

function isLoopbackIpLiteral(hostname: string): boolean {
  return hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Glob → RegExp: `*` matches within one host label / path segment, `**` matches across them. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^./]*';
    } else if (ch === '?') re += '[^./]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export type RedirectPolicy = { siteUrl: string; allowList: string[]; allowLoopback: boolean };

export function isRedirectAllowed(candidate: string, policy: RedirectPolicy): boolean {
  // Control characters (CRLF injection), backslashes and whitespace never belong in a redirect.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is exactly what we reject
  if (/[\u0000-\u001f\u007f\\\s]/.test(candidate)) return false;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  const site = new URL(policy.siteUrl);
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username || url.password) return false;
    if (url.protocol === site.protocol && url.hostname === site.hostname) {
      if (url.port === site.port || LOOPBACK_HOSTS.has(url.hostname)) return true;
    }
    if (policy.allowLoopback && isLoopbackIpLiteral(url.hostname)) return true;
  }
  const withoutFragment = candidate.split('#')[0] as string;
  return policy.allowList.some((glob) => globToRegExp(glob).test(withoutFragment));
}

/** The redirect to use: the candidate when allowed, otherwise SITE_URL (`fellBack` tells the caller to log). */
export function resolveRedirect(
  candidate: string | undefined,
  policy: RedirectPolicy,
): { url: string; fellBack: boolean } {
  if (!candidate) return { url: policy.siteUrl, fellBack: false };
  if (isRedirectAllowed(candidate, policy)) return { url: candidate, fellBack: false };
  return { url: policy.siteUrl, fellBack: true };
}
