// One HTTP call to an SMS or WhatsApp API, and what its failure means. A refusal (4xx, or a 2xx
// whose body says it failed) is permanent: retrying sends the same refused request. A 5xx, a
// timeout or a network failure is transient: the outbox retries it (core/sms/code-delivery.ts).
// Error messages name the provider and the status only: never the URL (Twilio's holds the account
// SID), the request (credentials) or the provider's answer (it may echo them).

export type FetchLike = typeof fetch;

export class SmsProviderError extends Error {
  readonly provider: string;
  readonly permanent: boolean;
  readonly status: number | undefined;
  constructor(provider: string, permanent: boolean, status: number | undefined, detail: string) {
    super(`${provider}: ${detail}`);
    this.name = 'SmsProviderError';
    this.provider = provider;
    this.permanent = permanent;
    this.status = status;
  }
}

/** A provider's own error code, when it is a short token (safe to log and show). */
export function safeCode(value: unknown): string | undefined {
  const s = typeof value === 'number' ? String(value) : value;
  return typeof s === 'string' && /^[\w.-]{1,24}$/.test(s) ? s : undefined;
}

/** POSTs and returns the parsed JSON answer (or {}) of a 2xx; throws SmsProviderError otherwise. */
export async function postToProvider(
  provider: string,
  url: string,
  init: { headers: Record<string, string>; body: string },
  opts: { timeoutMs: number; fetchImpl?: FetchLike | undefined },
): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await (opts.fetchImpl ?? fetch)(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      redirect: 'error',
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    throw new SmsProviderError(
      provider,
      false,
      undefined,
      timedOut ? `no answer within ${opts.timeoutMs} ms` : 'unreachable',
    );
  }
  const json = (await res.json().catch(() => ({}))) as unknown;
  const body =
    json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  if (res.ok) return body;
  // 408 and 429 are the provider asking to be tried again later.
  const transient = res.status >= 500 || res.status === 408 || res.status === 429;
  throw new SmsProviderError(provider, !transient, res.status, `answered HTTP ${res.status}`);
}
