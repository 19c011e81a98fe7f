import { siteConfig } from '~/config/site.ts';
import { errorCode } from '~/features/auth/lib/mfa.ts';
import type { Messages } from '~/i18n/messages.ts';

type PhoneCopy = Messages['accountPage']['mfa']['phone'];

/**
 * The phone parser (libphonenumber-js and its metadata), loaded when the phone form is first used:
 * its own chunk, so the account page's first load does not carry it.
 */
export function loadPhoneParser(): Promise<typeof import('~/lib/phone-number.ts')> {
  return import('~/lib/phone-number.ts');
}

/**
 * A number isolated left to right (LRI … PDI): inside an Arabic sentence, "+966 50 123 4567" keeps
 * its "+" in front and its digit groups in order (the spaces between them would otherwise take the
 * sentence's direction and reverse the groups). Its spaces become no-break spaces: a number is not
 * split across lines.
 */
export const ltr = (phone: string) => `\u2066${phone.replace(/ /g, '\u00a0')}\u2069`;

/** The form's hint with its example numbers. */
export function phoneHint(copy: PhoneCopy): string {
  const { local, abroad } = siteConfig.phoneExamples;
  return copy.hint.replace('{0}', ltr(local)).replace('{1}', ltr(abroad));
}

/** "Enter a mobile number…" with its example numbers. */
export function phoneInvalid(copy: PhoneCopy): string {
  const { local, international } = siteConfig.phoneExamples;
  return copy.invalid.replace('{0}', ltr(local)).replace('{1}', ltr(international));
}

/** A factor's number as the service lists it (E.164 digits, with or without "+"), as E.164. */
export function e164Of(phone: string | undefined): string {
  const digits = (phone ?? '').replace(/\D/g, '');
  return digits ? `+${digits}` : '';
}

/**
 * What went wrong adding a phone factor, in the page's words: the service cannot send SMS
 * (`422 mfa_phone_enroll_not_enabled`), the number is already a factor (verified, or the name it
 * would get is taken), the number was refused, or the SMS could not go out. Anything else: `other`
 * (the service's error mapped as everywhere on the page).
 */
export function phoneFactorProblem(
  error: unknown,
  copy: PhoneCopy,
  other: (error: unknown) => string,
): string {
  switch (errorCode(error)) {
    case 'mfa_phone_enroll_not_enabled':
      return copy.disabled;
    case 'mfa_verified_factor_exists':
    case 'mfa_factor_name_conflict':
      return copy.exists;
    case 'validation_failed':
      return phoneInvalid(copy);
    case 'sms_send_failed':
      return copy.sendFailed;
    default:
      return other(error);
  }
}
