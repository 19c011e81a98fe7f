import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from './deps.ts';

/**
 * Runs an email-keyed request (sign-up, recover, resend) and answers no sooner than
 * EMAIL_RESPONSE_FLOOR_MS after it started, success or failure. Known and unknown addresses do
 * different database work (a new user and its email versus nothing); under the floor both answer at
 * the same moment, so response time does not reveal which addresses have accounts (ASVS 6.3.8).
 */
export async function withResponseFloor<T>(deps: Deps, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const wait = deps.config.EMAIL_RESPONSE_FLOOR_MS - (performance.now() - started);
    if (wait > 0) await sleep(wait);
  }
}
