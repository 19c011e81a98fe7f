// An auth hook that is a SQL function (`pg-functions://postgres/<schema>/<function>`), called with
// the payload as jsonb, on PostgreSQL and on the embedded PGlite alike, so a Supabase project's hook
// function runs unchanged on either. GoTrue's rule: 2 s of statement_timeout, no retry.
import type { Db } from '../../db/client.ts';
import { isDatabaseUnavailable, sqlState } from '../../db/client.ts';
import { callHookFunction } from '../../db/hooks.repo.ts';
import { AuthError } from '../../errors.ts';
import { hookRefusal, hookUpstreamError } from './hook-error.ts';

export const PG_HOOK_TIMEOUT_MS = 2_000;

export async function callPgHook(
  db: Db,
  uri: string,
  functionName: string,
  payload: string,
): Promise<unknown> {
  let answer: unknown;
  const timedOut = () =>
    new AuthError('hook_timeout', 'Failed to reach hook within maximum time of 2.000000 seconds');
  let timer: NodeJS.Timeout | undefined;
  try {
    const call = callHookFunction(db, functionName, payload, PG_HOOK_TIMEOUT_MS);
    // PostgreSQL cancels the statement itself (57014 below); the timer covers a wait for a pooled
    // connection. The embedded PGlite has no statement timer and runs SQL on the event loop's
    // thread: a slow function holds the whole process until it returns (see the check below).
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut()), PG_HOOK_TIMEOUT_MS + 250);
    });
    call.catch(() => {});
    const started = performance.now();
    answer = await Promise.race([call, deadline]);
    // PGlite runs the function on this thread, so no timer fires while it runs: one that overran is
    // refused once it returns, with the same answer PostgreSQL gives.
    if (performance.now() - started > PG_HOOK_TIMEOUT_MS) throw timedOut();
  } catch (err) {
    if (err instanceof AuthError) throw err;
    // 57014 query_canceled: the function overran its statement_timeout (checked first: the
    // service otherwise reads a cancelled statement as an outage).
    if (sqlState(err) === '57014') throw timedOut();
    // The database itself is down: the service's 503, as for any other statement.
    if (isDatabaseUnavailable(err)) throw err;
    // A function that raised, or does not exist: GoTrue's "Error running hook URI" (its 500; our 502).
    throw hookUpstreamError(`Error running hook URI: ${uri}`);
  } finally {
    clearTimeout(timer);
  }
  if (answer === null || answer === undefined) return undefined;
  let body = answer;
  if (typeof answer === 'string') {
    try {
      body = JSON.parse(answer);
    } catch {
      throw hookUpstreamError('Error unmarshaling JSON output.');
    }
  }
  const refusal = hookRefusal(body);
  if (refusal) throw refusal;
  return body;
}
