// CAPTCHA on GoTrue's public endpoints (SECURITY_CAPTCHA_*): the client sends the widget's token as
// `gotrue_meta_security.captcha_token` (supabase-js `options.captchaToken`); it is checked with the
// provider's `siteverify` form API (hCaptcha or Cloudflare Turnstile, same shape) before the
// endpoint runs. GoTrue's rules: refresh, PKCE and id_token grants need none, and neither does an
// admin caller (the service-role key).
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../config.ts';
import { AuthError } from '../../errors.ts';
import type { AppEnv } from './context.ts';

/** The POST endpoints GoTrue puts behind its verifyCaptcha middleware. */
export const CAPTCHA_PATHS = new Set(['/signup', '/recover', '/resend', '/magiclink', '/otp', '/token']);
const EXEMPT_GRANTS = new Set(['refresh_token', 'pkce', 'id_token']);

export function requireCaptcha(config: Config, fetchImpl: typeof fetch = fetch): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const captcha = config.captcha;
    if (!captcha || c.get('apiKey') === 'service') return next();
    if (c.req.path.endsWith('/token') && EXEMPT_GRANTS.has(c.req.query('grant_type') ?? '')) return next();
    const body = c.get('body') as { gotrue_meta_security?: { captcha_token?: unknown } } | undefined;
    const raw = body?.gotrue_meta_security?.captcha_token;
    const token = typeof raw === 'string' ? raw.trim() : '';
    if (token === '')
      throw new AuthError(
        'captcha_failed',
        'captcha protection: request disallowed (no captcha_token found)',
      );
    // Providers' tokens are a few hundred characters; anything huge is not one.
    if (token.length > 4096)
      throw new AuthError(
        'captcha_failed',
        'captcha protection: request disallowed (invalid-input-response)',
      );
    let result: { success?: unknown; 'error-codes'?: unknown };
    try {
      const res = await fetchImpl(captcha.verifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: captcha.secret, response: token, remoteip: c.get('meta').ip }),
        signal: AbortSignal.timeout(captcha.timeoutMs),
        redirect: 'error',
      });
      result = (await res.json()) as typeof result;
    } catch {
      // GoTrue's 500 "captcha verification process failed"; a 502 here: the provider failed, not us.
      throw new AuthError('unexpected_failure', 'captcha verification process failed', { status: 502 });
    }
    if (result.success !== true) {
      const codes = Array.isArray(result['error-codes'])
        ? result['error-codes'].filter((x): x is string => typeof x === 'string').slice(0, 5)
        : [];
      throw new AuthError('captcha_failed', `captcha protection: request disallowed (${codes.join(', ')})`);
    }
    return next();
  };
}
