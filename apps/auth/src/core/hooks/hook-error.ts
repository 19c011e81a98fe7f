import { AuthError } from '../../errors.ts';

/**
 * GoTrue's answers for a hook that failed. Where GoTrue answers 500 (the hook's endpoint answered
 * an unexpected status, malformed JSON, claims that break the token's schema, an `error` without an
 * `http_code`), this service answers 502 with GoTrue's code and message instead: the fault is the
 * hook's, upstream, and supabase-js treats 502 as retryable, so a client whose token refresh meets a
 * failing hook keeps its session instead of being signed out (it signs out on 500).
 */
export function hookUpstreamError(message: string): AuthError {
  return new AuthError('unexpected_failure', message, { status: 502 });
}

/**
 * A hook's own refusal, `{"error": {"http_code": 4xx, "message": "…"}}`, passed to the client as
 * GoTrue does: its status and message, code `unknown` (GoTrue sets no code on it). A 5xx or missing
 * `http_code` becomes the 502 above (never a 500).
 */
export function hookRefusal(body: unknown): AuthError | undefined {
  if (body === null || typeof body !== 'object' || !('error' in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (error === null || typeof error !== 'object') return undefined;
  const { http_code: code, message } = error as { http_code?: unknown; message?: unknown };
  // GoTrue ignores an error object without a message.
  if (typeof message !== 'string' || message === '') return undefined;
  const text = message.slice(0, 1000);
  if (typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 500)
    return new AuthError('unknown', text, { status: code });
  return hookUpstreamError(text);
}
