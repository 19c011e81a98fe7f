import type { Config } from '../config.ts';
import { errorChain } from '../db/client.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { errorSummary } from '../db/error-summary.ts';

/**
 * A start-up failure an operator can act on: its message is one line naming the setting at fault and
 * the cause, and never holds a secret. main.ts (and the CLIs) print it alone, without a stack, and
 * exit non-zero.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** DATABASE_URL as it may be shown: scheme, user, host, port and database; no password, no query. */
export function redactDatabaseUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const user = u.username ? `${decodeURIComponent(u.username)}${u.password ? ':***' : ''}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

function passwordOf(raw: string): string | undefined {
  try {
    const u = new URL(raw);
    return u.password ? decodeURIComponent(u.password) : undefined;
  } catch {
    return undefined;
  }
}

/** The most telling one-line cause of an error: the driver's message, else its errno code. */
export function causeOf(err: unknown): string {
  const own = errorSummary(err).message;
  // Node's connect errors to a host with several addresses are AggregateErrors with an empty message.
  let text = own;
  if (!text)
    for (const e of errorChain(err)) {
      const inner = (e as { errors?: unknown[] }).errors?.[0] as { message?: string } | undefined;
      text = inner?.message || (typeof e.code === 'string' ? e.code : '');
      if (text) break;
    }
  return (text || 'unknown error').replace(/\s*\n\s*/g, ' ');
}

/**
 * Why the database could not be opened or migrated, naming the setting that chose it: DATABASE_URL
 * (password redacted) or DATA_DIR. The cause's text cannot hold the password: drivers do not echo it.
 */
export function databaseStartupError(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>, err: unknown): Error {
  if (err instanceof StartupError || err instanceof DataDirLockedError) return err;
  if (config.DATABASE_URL) {
    let cause = causeOf(err);
    // Belt and braces: should a driver ever quote the URL back, its password must not go with it.
    const password = passwordOf(config.DATABASE_URL);
    if (password) cause = cause.split(password).join('***');
    return new StartupError(
      `Cannot use the database at DATABASE_URL=${redactDatabaseUrl(config.DATABASE_URL)}: ${cause}`,
    );
  }
  const code = (err as { code?: unknown }).code;
  const hint =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? ' (this process may not write there: fix the permissions or point DATA_DIR elsewhere)'
      : '';
  return new StartupError(
    `Cannot use DATA_DIR=${config.DATA_DIR} for the embedded database: ${causeOf(err)}${hint}`,
  );
}
