// The custom access-token hook: the claims GoTrue would sign go to the hook with the user's id and
// how they signed in; the hook answers `{"claims": {…}}`, which must still satisfy GoTrue's minimum
// token schema (the required claims stay, with their types) and is then signed as it stands.
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { hookUpstreamError } from './hook-error.ts';
import { answerObject, runHook } from './hooks.ts';

// GoTrue's MinimumViableTokenSchema, as a zod schema: required claims and the types of known ones;
// anything else the hook adds is kept.
const minimumTokenClaims = z.looseObject({
  aud: z.union([z.string(), z.array(z.unknown())]),
  exp: z.number().int(),
  jti: z.string().optional(),
  iat: z.number().int(),
  iss: z.string().optional(),
  nbf: z.number().int().optional(),
  sub: z.string(),
  email: z.string(),
  phone: z.string(),
  app_metadata: z.record(z.string(), z.unknown()).optional(),
  user_metadata: z.record(z.string(), z.unknown()).optional(),
  role: z.string(),
  aal: z.string(),
  amr: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).optional(),
  session_id: z.string(),
  client_id: z.string().optional(),
  is_anonymous: z.unknown().refine((v) => v !== undefined, 'is_anonymous is required'),
});

/** GoTrue's authentication_method for a session's newest amr entry (refresh: token_refresh). */
export function authenticationMethod(amr: Array<{ method: string; timestamp: number }>): string {
  let newest: { method: string; timestamp: number } | undefined;
  for (const entry of amr) if (!newest || entry.timestamp >= newest.timestamp) newest = entry;
  const method = newest?.method ?? 'password';
  return method === 'totp' || method === 'phone' || method === 'webauthn' ? `mfa/${method}` : method;
}

/** The hook's claims, validated; throws GoTrue's error (as a 502, never a 500) when they are not. */
export async function customizeClaims(
  deps: Pick<Deps, 'config' | 'db' | 'logger' | 'clock'>,
  input: {
    userId: string;
    claims: Record<string, unknown>;
    authenticationMethod: string;
    ip?: string | undefined;
  },
): Promise<Record<string, unknown>> {
  const answer = answerObject(
    await runHook(
      deps,
      'CUSTOM_ACCESS_TOKEN',
      { user_id: input.userId, claims: input.claims, authentication_method: input.authenticationMethod },
      input.ip,
    ),
  );
  if (!('claims' in answer)) throw hookUpstreamError('output claims field is missing');
  const parsed = minimumTokenClaims.safeParse(answer.claims);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `- ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw hookUpstreamError(`output claims do not conform to the expected schema: \n${problems.join('\n')}`);
  }
  return parsed.data;
}
