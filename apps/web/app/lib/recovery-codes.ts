import type { AuthClient } from './auth-client.ts';
import { fetchRuntimeConfig, resolveSupabaseUrl } from './runtime-config.ts';

/**
 * MFA recovery codes, shaped like supabase-js's experimental `auth.mfa.recoveryCodes` (supabase-js
 * #2676: getStatus, generate, verify, regenerate, unenroll). The installed auth-js predates that API,
 * so the calls go over fetch with the session's token, as auth-js would send them.
 */
export type RecoveryCodeSet = {
  id: string;
  type: 'recovery_code';
  friendly_name: string;
  total: number;
  codes: string[];
};
export type RecoveryCodesStatus = { id: string; total: number; remaining: number };
export type RecoveryCodesError = { code: string; status: number; message: string };
type Result<T> = { data: T; error: null } | { data: null; error: RecoveryCodesError };

let base: Promise<{ url: string; anonKey: string }> | undefined;

function endpoint(): Promise<{ url: string; anonKey: string }> {
  base ??= fetchRuntimeConfig().then((config) => ({
    url: `${resolveSupabaseUrl(config, window.location.origin)}/auth/v1`,
    anonKey: config.anonKey,
  }));
  base.catch(() => {
    base = undefined;
  });
  return base;
}

async function call<T>(auth: AuthClient, method: string, path: string, body?: unknown): Promise<Result<T>> {
  const { url, anonKey } = await endpoint();
  const { data } = await auth.getSession();
  const token = data.session?.access_token;
  if (!token)
    return { data: null, error: { code: 'no_authorization', status: 401, message: 'Not signed in' } };
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      apikey: anonKey,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      // The API version auth-js sends: errors come back as {code, message}.
      'x-supabase-api-version': '2024-01-01',
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return { data: json as T, error: null };
  return {
    data: null,
    error: {
      code: typeof json.code === 'string' ? json.code : 'unexpected_failure',
      status: response.status,
      message: typeof json.message === 'string' ? json.message : response.statusText,
    },
  };
}

export function recoveryCodes(auth: AuthClient) {
  return {
    getStatus: () => call<RecoveryCodesStatus>(auth, 'GET', '/factors/recovery-codes'),
    generate: () => call<RecoveryCodeSet>(auth, 'POST', '/factors/recovery-codes', {}),
    regenerate: () => call<RecoveryCodeSet>(auth, 'POST', '/factors/recovery-codes/regenerate', {}),
    unenroll: () => call<{ id: string }>(auth, 'DELETE', '/factors/recovery-codes'),
    /** Spends a code; the aal2 session it answers replaces the stored one (auth-js emits the change). */
    verify: async (code: string): Promise<Result<null>> => {
      const result = await call<{ access_token: string; refresh_token: string }>(
        auth,
        'POST',
        '/factors/recovery-codes/verify',
        { code },
      );
      if (result.error) return result;
      const { error } = await auth.setSession({
        access_token: result.data.access_token,
        refresh_token: result.data.refresh_token,
      });
      if (error)
        return {
          data: null,
          error: { code: error.code ?? 'unknown', status: error.status ?? 0, message: error.message },
        };
      return { data: null, error: null };
    },
  };
}

/** Shown in groups of four (`abcd-efgh-…`): easier to copy by hand; the service ignores the dashes. */
export function formatRecoveryCode(code: string): string {
  return code.replace(/(.{4})(?=.)/g, '$1-');
}

/** What a typed code must look like before it is sent: 16 letters and digits, spaces and dashes aside. */
export function looksLikeRecoveryCode(input: string): boolean {
  return /^[0-9a-z]{16}$/i.test(input.replace(/[\s-]/g, ''));
}
