import { errorChain, sqlState } from './client.ts';

/**
 * What may be logged about a thrown error. The SQLSTATE goes in `sqlState`, not `code`: the logger
 * redacts every `*.code` field (email and TOTP codes go by that name).
 */
export type ErrorSummary = { message: string; sqlState?: string; stack?: string };

/** Longest message kept: PostgreSQL quotes the offending input in some (22P02 "invalid input syntax … \"…\""). */
const MAX_MESSAGE = 300;

/**
 * Drizzle's wrapper (DrizzleQueryError): its message is `Failed query: <sql>\nparams: <every bound
 * value>`, i.e. password hashes, TOTP secrets and mail text. Recognised by its text, not its class,
 * so a second copy of drizzle-orm or a re-wrap (`new Error(String(err))`) is caught as well. The
 * driver's own error is no wrapper even though PGlite attaches `query` and `params` fields to it.
 */
function isQueryWrapper(message: string): boolean {
  return message.includes('Failed query:') || message.includes('\nparams:');
}

function messageOf(link: unknown): string {
  const message = (link as { message?: unknown }).message;
  return typeof message === 'string' ? message : '';
}

/** The stack's `at …` lines only: its first line(s) repeat the message, wrapper text included. */
function frames(err: unknown): string | undefined {
  const stack = (err as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The text to log: the driver's (or any non-wrapper's) message, else a placeholder. */
function ownMessage(err: unknown, links: object[], code: string | undefined): string {
  const candidates = links.filter((e) => messageOf(e) !== '' && !isQueryWrapper(messageOf(e)));
  // The link carrying the SQLSTATE is the driver's error; without one, the first that is not a
  // wrapper (a lost connection under a wrapper: `connect ECONNREFUSED 127.0.0.1:5432`).
  const own =
    candidates.find((e) => code !== undefined && (e as { code?: unknown }).code === code) ?? candidates[0];
  if (own) return messageOf(own);
  if (links.length > 0) return links.some((e) => isQueryWrapper(messageOf(e))) ? 'database query failed' : '';
  const text = String(err); // a thrown non-object
  return isQueryWrapper(text) ? 'database query failed' : text;
}

/**
 * A log-safe account of an error: the SQLSTATE (when there is one) and the message of the first
 * link in the cause chain that is not Drizzle's query wrapper, i.e. the driver's own message
 * (`invalid byte sequence for encoding "UTF8": 0x00`). Never the SQL, never `params`, never the
 * driver's `detail` (a unique violation's detail is `Key (email)=(bob@example.com) already exists`).
 * With `stack`, the call frames of the outermost error are kept (where it was thrown), not its text.
 */
export function errorSummary(err: unknown, options: { stack?: boolean } = {}): ErrorSummary {
  const links = errorChain(err);
  const code = sqlState(err);
  const summary: ErrorSummary = { message: ownMessage(err, links, code).slice(0, MAX_MESSAGE) };
  if (code) summary.sqlState = code;
  if (options.stack) {
    const stack = frames(err);
    if (stack) summary.stack = stack;
  }
  return summary;
}

/**
 * The logger's serializer for the `err` field, for call sites that log an error themselves: an
 * Error becomes its summary and a message string holding Drizzle's query text is withheld (callers
 * that log `err.message` would otherwise write every bound parameter). Anything else is kept.
 */
export function logSafeErr(value: unknown): unknown {
  if (value instanceof Error) return errorSummary(value, { stack: true });
  if (typeof value === 'string' && isQueryWrapper(value))
    return 'database query failed (query text withheld)';
  return value;
}
