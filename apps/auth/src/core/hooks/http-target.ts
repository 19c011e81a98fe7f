// An auth hook reached over HTTP(S): the JSON payload POSTed, signed with Standard Webhooks
// (`webhook-id`, `webhook-timestamp`, `webhook-signature`: one `v1,…` signature per configured
// secret, so a hook can roll its secret), with GoTrue's timings: 5 s for the whole call, up to 3
// attempts when the connection fails (2 s apart), an immediate retry on 429/503 with Retry-After,
// and at most 200 KB of answer.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { AuthError } from '../../errors.ts';
import { hookRefusal, hookUpstreamError } from './hook-error.ts';

export const HTTP_HOOK_TIMEOUT_MS = 5_000;
const ATTEMPTS = 3;
const BACKOFF_MS = 2_000;
export const HOOK_RESPONSE_LIMIT = 200 * 1024;

/** The secrets' signers, made once per hook (the base64 key is decoded once). */
export function webhookSigners(secrets: string[]): Webhook[] {
  // `v1,whsec_<base64>`: the library takes the `whsec_…` part.
  return secrets.map((s) => new Webhook(s.slice('v1,'.length)));
}

class HookTimeout extends Error {}

/** Calls the hook; resolves with its parsed JSON answer (undefined for 204) or throws an AuthError. */
export async function callHttpHook(
  uri: string,
  signers: Webhook[],
  payload: string,
  fetchImpl: typeof fetch = fetch,
): Promise<unknown> {
  const deadline = AbortSignal.timeout(HTTP_HOOK_TIMEOUT_MS);
  const timedOut = () =>
    new AuthError('hook_timeout', `Failed to reach hook within maximum time of 5.000000 seconds`);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const id = randomUUID();
    const at = new Date();
    let res: Response;
    try {
      res = await fetchImpl(uri, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signers.map((w) => w.sign(id, at, payload)).join(' '),
        },
        body: payload,
        signal: deadline,
        redirect: 'error',
      });
    } catch {
      if (deadline.aborted) throw timedOut();
      if (attempt === ATTEMPTS - 1) throw new AuthError('hook_timeout_after_retry');
      try {
        await wait(BACKOFF_MS, deadline);
      } catch {
        throw timedOut();
      }
      continue;
    }
    switch (res.status) {
      case 204:
        await res.body?.cancel();
        return undefined;
      case 200:
      case 202: {
        const type = res.headers.get('content-type');
        const mediaType = type?.split(';')[0]?.trim().toLowerCase();
        if (mediaType !== 'application/json') {
          await res.body?.cancel();
          throw new AuthError(
            'hook_payload_invalid_content_type',
            type
              ? `Invalid JSON response. Received content-type: ${type.slice(0, 100)}`
              : 'Invalid Content-Type: Missing Content-Type header',
          );
        }
        let text: string;
        try {
          text = await readLimited(res, HOOK_RESPONSE_LIMIT);
        } catch (err) {
          if (err instanceof AuthError) throw err;
          throw deadline.aborted ? timedOut() : hookUpstreamError('Error reading hook response');
        }
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw hookUpstreamError('Error unmarshaling JSON output.');
        }
        const refusal = hookRefusal(body);
        if (refusal) throw refusal;
        return body;
      }
      case 429:
      case 503:
        await res.body?.cancel();
        if (res.headers.get('retry-after')) continue;
        throw hookUpstreamError('Service currently unavailable due to hook');
      case 400:
        await res.body?.cancel();
        throw hookUpstreamError('Invalid payload sent to hook');
      case 401:
        await res.body?.cancel();
        throw hookUpstreamError('Hook requires authorization token');
      default:
        await res.body?.cancel();
        throw hookUpstreamError(`Unexpected status code returned from hook: ${res.status}`);
    }
  }
  throw hookUpstreamError('Service currently unavailable due to hook');
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new HookTimeout());
      },
      { once: true },
    );
  });
}

/** The body as text, refusing more than `limit` bytes without reading the rest. */
async function readLimited(res: Response, limit: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new AuthError(
        'hook_payload_over_size_limit',
        `Payload size exceeded size limit of ${limit} bytes`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
