// GoTrue's auth hooks: seven extension points an operator turns on with HOOK_<NAME>_ENABLED and
// points at a SQL function (pg-target.ts) or an HTTP(S) endpoint signed with Standard Webhooks
// (http-target.ts). Each call sends GoTrue's JSON (a `metadata` block and the hook's own fields)
// and reads GoTrue's answer; a hook that is off costs one property read (config.hooks[name]).
import { randomUUID } from 'node:crypto';
import type { Webhook } from 'standardwebhooks';
import type { HookName, HookTarget } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { callHttpHook, webhookSigners } from './http-target.ts';
import { callPgHook } from './pg-target.ts';

/** `metadata.name` as GoTrue writes it for each hook. */
const wireName: Record<HookName, string> = {
  CUSTOM_ACCESS_TOKEN: 'customize-access-token',
  SEND_SMS: 'send-sms',
  SEND_EMAIL: 'send-email',
  MFA_VERIFICATION_ATTEMPT: 'mfa-verification',
  PASSWORD_VERIFICATION_ATTEMPT: 'password-verification',
  BEFORE_USER_CREATED: 'before-user-created',
  AFTER_USER_CREATED: 'after-user-created',
};

// Signers decoded once per configured hook (the config object lives as long as the process).
const signersByTarget = new WeakMap<HookTarget, Webhook[]>();

export function hookEnabled(deps: Pick<Deps, 'config'>, name: HookName): boolean {
  return deps.config.hooks[name] !== undefined;
}

/**
 * Runs the hook `name` with `fields` (GoTrue's input for it, beside `metadata`) and returns its
 * parsed answer: undefined for an empty answer, else the JSON. Throws GoTrue's AuthError for a hook
 * that refused, failed, answered badly or timed out (see hook-error.ts: never a 500).
 */
export async function runHook(
  deps: Pick<Deps, 'config' | 'db' | 'logger' | 'clock'>,
  name: HookName,
  fields: Record<string, unknown>,
  ip: string | undefined,
): Promise<unknown> {
  const target = deps.config.hooks[name];
  if (!target) return undefined;
  const payload = JSON.stringify({
    metadata: {
      uuid: randomUUID(),
      time: deps.clock().toISOString(),
      name: wireName[name],
      ...(ip ? { ip_address: ip } : {}),
    },
    ...fields,
  });
  const started = performance.now();
  try {
    let answer: unknown;
    if (target.kind === 'http') {
      let signers = signersByTarget.get(target);
      if (!signers) {
        signers = webhookSigners(target.secrets);
        signersByTarget.set(target, signers);
      }
      answer = await callHttpHook(target.uri, signers, payload);
    } else {
      answer = await callPgHook(deps.db, target.uri, target.functionName, payload);
    }
    deps.logger.debug({ hook: wireName[name], ms: Math.round(performance.now() - started) }, 'hook ran');
    return answer;
  } catch (err) {
    // The URI only: a hook's answer may hold personal data, and a pg error its query.
    deps.logger.warn(
      {
        hook: wireName[name],
        uri: target.kind === 'http' ? new URL(target.uri).origin : target.uri,
        ms: Math.round(performance.now() - started),
        err: (err as Error).message,
      },
      'hook failed',
    );
    throw err;
  }
}

/** The hook's answer as an object (a non-object answer reads as `{}`, as Go's unmarshal leaves it). */
export function answerObject(answer: unknown): Record<string, unknown> {
  return answer !== null && typeof answer === 'object' && !Array.isArray(answer)
    ? (answer as Record<string, unknown>)
    : {};
}
