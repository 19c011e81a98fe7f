import type { Locale } from '~/config/locales.ts';
import { type ServiceErrorMessages, serviceErrorCatalogs } from '~/i18n/service-errors.ts';
import { type AuthErrorMessages, authErrorMessage, isServiceAway } from './auth-error-message.ts';

/**
 * The toast text for an auth error in the page's language. The spec's catalogue (§8) comes first
 * (already registered, invalid credentials, no message); what would otherwise be the service's own
 * English message is replaced, in a locale with a service-error catalog, by the text for its
 * `error_code`, or by the locale's generic message. English keeps the service's own message.
 */
export function localizedAuthErrorMessage(
  error: unknown,
  messages: AuthErrorMessages,
  locale: Locale,
  catalogs: Partial<Record<Locale, ServiceErrorMessages>> = serviceErrorCatalogs,
): string {
  const text = authErrorMessage(error, messages);
  const service = catalogs[locale];
  // A 502–504 reaches auth-js without the service's body (no code): it is the service being away.
  const unavailable = service?.byCode.service_unavailable;
  if (unavailable && isServiceAway(error)) return unavailable;
  if (!service || Object.values(messages).includes(text)) return text;
  const code =
    error && typeof error === 'object' && 'code' in error && typeof error.code === 'string' ? error.code : '';
  return service.byCode[code] ?? service.unknown;
}
