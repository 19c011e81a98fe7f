// The account page's extension endpoints of the auth service (GET /account/sessions, GET
// /account/export, DELETE /account). They are ours, not GoTrue's, so auth-js has no methods for them:
// plain fetch with the session's access token, errors shaped like auth-js's (status, code, message)
// so the page's error texts treat them alike.
import { fetchRuntimeConfig, resolveSupabaseUrl } from '~/lib/runtime-config.ts';

export type AccountSession = {
  id: string;
  aal: string;
  user_agent: string | null;
  created_at: string;
  last_active_at: string;
  current: boolean;
};

/** An error answer of the service, with the fields auth-js errors carry. */
export class AccountApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, code: string | undefined, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let endpoint: Promise<{ base: string; anonKey: string }> | undefined;

async function call(path: string, accessToken: string, init: RequestInit = {}): Promise<Response> {
  endpoint ??= fetchRuntimeConfig().then((config) => ({
    base: `${resolveSupabaseUrl(config, window.location.origin)}/auth/v1`,
    anonKey: config.anonKey,
  }));
  const { base, anonKey } = await endpoint;
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      ...init,
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        'x-supabase-api-version': '2024-01-01',
      },
      cache: 'no-store',
    });
  } catch (error) {
    // As auth-js reports a request that got no answer.
    throw new AccountApiError(0, undefined, (error as Error).message || 'Failed to fetch');
  }
  if (response.ok) return response;
  const body = (await response.json().catch(() => ({}))) as { code?: unknown; message?: unknown };
  throw new AccountApiError(
    response.status,
    typeof body.code === 'string' ? body.code : undefined,
    typeof body.message === 'string' ? body.message : '',
  );
}

export async function listSessions(accessToken: string): Promise<AccountSession[]> {
  const response = await call('/account/sessions', accessToken);
  return ((await response.json()) as { sessions: AccountSession[] }).sessions;
}

/** The export as a file to save (the service answers it as an attachment). */
export async function fetchExport(accessToken: string): Promise<Blob> {
  const response = await call('/account/export', accessToken);
  return new Blob([await response.text()], { type: 'application/json' });
}

export async function deleteAccount(accessToken: string, nonce: string): Promise<void> {
  await call('/account', accessToken, { method: 'DELETE', body: JSON.stringify({ nonce }) });
}
