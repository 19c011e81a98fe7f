import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { PKCE_LINK_PREFIX } from '../../core/email-tokens.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { sessionSchema } from '../../core/http/response-schemas.ts';
import { codeField, phoneField } from '../../core/http/schemas.ts';
import { AuthError } from '../../errors.ts';
import { verifyPhoneOtp } from '../otp/index.ts';
import { EMAIL_CHANGE_HALF_CONFIRMED } from '../user/index.ts';
import { verifyToken } from './verify.ts';

export const verifyBody = z.object({
  type: z.string().max(50),
  token_hash: z.string().max(512).optional(),
  token: codeField(512).optional(),
  email: z.string().max(1000).optional(),
  phone: phoneField().optional(),
});

function withFragment(url: string, params: Record<string, string>): string {
  const base = url.split('#')[0] as string;
  const keys = Object.keys(params).sort();
  return `${base}#${keys.map((k) => `${k}=${encodeURIComponent(params[k] as string)}`).join('&')}`;
}

export function verifyEndpoints(deps: Deps): Endpoint[] {
  const verifyLink = defineEndpoint({
    method: 'get',
    path: '/verify',
    // The link is opened from a mail, in a browser that has no key.
    access: 'public',
    summary:
      'The email link: consumes the token and 303-redirects to redirect_to with the session in the fragment',
    // Required for a session; a link without them still redirects, with the error in the fragment.
    query: z.object({ token: z.string(), type: z.string(), redirect_to: z.string().optional() }),
    responses: { 303: 'Redirect (session or error in the URL fragment)' },
    handler: async (c, { query }) => {
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      // Hono answers HEAD with the GET handler: a link scanner's HEAD must not burn the token.
      if (c.req.method === 'HEAD') return c.body(null, 200);
      const token = query('token') ?? '';
      const type = query('type') ?? '';
      const requested = query('redirect_to');
      try {
        if (!token || !type) throw new AuthError('validation_failed', 'Verify requires a token and a type');
        const result = await verifyToken(deps, { type, tokenHash: token }, c.get('meta'), { pkceLink: true });
        const target = redirectFor(deps, c, requested ?? result.redirectTo);
        if (result.halfConfirmed) {
          // GoTrue's shape: the message in the fragment, and for a PKCE link in the query as well.
          const url = new URL(target);
          if (result.halfConfirmed.pkceLink) url.searchParams.set('message', EMAIL_CHANGE_HALF_CONFIRMED);
          return c.redirect(withFragment(url.href, { message: EMAIL_CHANGE_HALF_CONFIRMED, sb: '' }), 303);
        }
        if (result.authCode) {
          // PKCE: only the one-time code travels in the URL; the client exchanges it with its verifier.
          const url = new URL(target);
          url.searchParams.set('code', result.authCode);
          return c.redirect(url.href, 303);
        }
        const s = result.session;
        if (!s) throw new AuthError('unexpected_failure');
        return c.redirect(
          withFragment(target, {
            access_token: s.access_token,
            expires_at: String(s.expires_at),
            expires_in: String(s.expires_in),
            refresh_token: s.refresh_token,
            sb: '',
            token_type: 'bearer',
            type: result.verifyType,
          }),
          303,
        );
      } catch (err) {
        if (!(err instanceof AuthError) || err.status >= 500) throw err;
        const error =
          err.status === 429
            ? 'invalid_request'
            : err.code === 'validation_failed'
              ? 'invalid_request'
              : 'access_denied';
        const params = {
          error,
          error_code: err.code,
          error_description:
            err.code === 'otp_expired' ? 'Email link is invalid or has expired' : err.message,
        };
        // Always in the fragment; for a PKCE link (GoTrue's prefix) in the query string as well.
        const url = new URL(redirectFor(deps, c, requested));
        if (token.startsWith(PKCE_LINK_PREFIX))
          for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
        return c.redirect(withFragment(url.href, { ...params, sb: '' }), 303);
      }
    },
  });

  const verifyCode = defineEndpoint({
    method: 'post',
    path: '/verify',
    access: 'apikey',
    summary: 'Verify a token_hash, or an email + 6-digit code; returns a session',
    body: verifyBody,
    responses: {
      200: {
        description: 'Session; for the first confirmation of a secure email change {msg, code}',
        schema: z.union([sessionSchema, z.object({ msg: z.string(), code: z.literal('200') })]),
      },
      403: 'otp_expired',
    },
    handler: async (c, { body }) => {
      if (body.phone !== undefined && body.email === undefined) {
        // Phone codes (features/otp): checked whatever EXTERNAL_PHONE_ENABLED says, as GoTrue does.
        if (body.type !== 'sms' && body.type !== 'phone_change')
          throw new AuthError('phone_provider_disabled');
        if (body.token_hash !== undefined)
          throw new AuthError('validation_failed', 'Only the token_hash and type should be provided');
        if (!body.token)
          throw new AuthError('validation_failed', 'Verify requires either a token or a token hash');
        c.header('Cache-Control', 'no-store');
        return c.json(
          await verifyPhoneOtp(
            deps,
            { phone: body.phone, token: body.token, type: body.type },
            c.get('meta'),
          ),
        );
      }
      let result: Awaited<ReturnType<typeof verifyToken>>;
      if (body.token_hash !== undefined) {
        if (body.email !== undefined || body.phone !== undefined)
          throw new AuthError('validation_failed', 'Only the token_hash and type should be provided');
        if (body.token_hash === '')
          throw new AuthError('validation_failed', 'Verify requires a token or a token hash');
        result = await verifyToken(deps, { type: body.type, tokenHash: body.token_hash }, c.get('meta'));
      } else {
        if (!body.token || body.email === undefined)
          throw new AuthError('validation_failed', 'Verify requires either a token or a token hash');
        if (!/^\d{6,10}$/.test(body.token)) throw new AuthError('otp_expired');
        result = await verifyToken(
          deps,
          { type: body.type, email: body.email, code: body.token },
          c.get('meta'),
        );
      }
      c.header('Cache-Control', 'no-store');
      // The first of a secure email change's two confirmations: no session yet (GoTrue's body, code a string).
      if (result.halfConfirmed) return c.json({ msg: EMAIL_CHANGE_HALF_CONFIRMED, code: '200' });
      return c.json(result.session);
    },
  });
  return [verifyLink, verifyCode];
}
