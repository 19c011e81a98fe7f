import pino from 'pino';
import { logSafeErr } from './db/error-summary.ts';

export type Logger = pino.Logger;

/**
 * JSON logs. Secrets never reach a log line: request logs carry the path without its query (links
 * carry tokens there), the redact list catches any field that might hold one by accident and `err`
 * goes through logSafeErr (a failed query's message lists every bound value).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  // stdout written asynchronously: lines logged while a write is in flight go out together in one
  // syscall instead of one blocking write per request line (pino flushes what is left on exit).
  destination ??= level === 'silent' ? undefined : pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: { service: 'auth' },
      // Errors logged as `{ err }` (or their message) never carry Drizzle's SQL and bound parameters.
      serializers: { err: logSafeErr },
      redact: {
        paths: [
          'password',
          '*.password',
          'token',
          '*.token',
          'refresh_token',
          '*.refresh_token',
          'access_token',
          '*.access_token',
          'provider_token',
          '*.provider_token',
          'provider_refresh_token',
          '*.provider_refresh_token',
          'code',
          '*.code',
          'authorization',
          '*.authorization',
          'headers.authorization',
          'apikey',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
