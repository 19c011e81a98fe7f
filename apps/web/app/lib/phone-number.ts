// The phone numbers people type, made E.164 for the service (which, as GoTrue, takes E.164 only).
// libphonenumber-js with its `mobile` metadata: the numbers entered here receive SMS, and that set
// knows each country's mobile ranges, so a Saudi landline (011…) is refused here instead of waiting
// for a text that never comes. It is a separate chunk: only the account page's phone form loads it
// (import it dynamically), so no other page, and not even the account page's first load, pays for it.
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import { siteConfig } from '~/config/site.ts';
import { asciiPhone } from './digits.ts';

/**
 * The E.164 form (`+966501234567`) of a typed mobile number, or undefined when it is not one. Takes
 * the local formats of `country` (default the site's: `05x xxx xxxx`, `5x xxx xxxx`) and
 * international ones (`+966 5x…`, `00966 5x…`, `+44 7…`), with spaces, dashes, dots and parentheses,
 * in ASCII, Arabic-Indic or Persian digits (by the rules of `asciiPhone`).
 */
export function toE164(typed: string, country: string = siteConfig.phoneCountry): string | undefined {
  const bare = asciiPhone(typed);
  if (!bare) return undefined;
  const parsed = parsePhoneNumberFromString(bare, { defaultCountry: country as CountryCode, extract: false });
  return parsed?.isValid() ? parsed.number : undefined;
}
