// The text of a code by SMS, in the visitor's language (core/mail/locale.ts decides which). Short
// enough for one SMS in Arabic (70 UCS-2 characters) and with no link: a link in a code message is
// what phishing looks like, and Saudi sender registrations refuse them.
import type { MailLocale } from '../mail/locale.ts';

export type CodePurpose = 'sign_in' | 'phone_change' | 'mfa' | 'reauthentication';

const english: Record<CodePurpose, string> = {
  sign_in: 'sign-in code',
  phone_change: 'code to confirm your new number',
  mfa: 'verification code',
  // GET /reauthenticate for an account with a phone and no email: a password change or a deletion.
  reauthentication: 'code to confirm it is you',
};
const arabic: Record<CodePurpose, string> = {
  sign_in: 'رمز الدخول',
  phone_change: 'رمز تأكيد رقمك الجديد',
  mfa: 'رمز التحقق',
  reauthentication: 'رمز تأكيد هويتك',
};

export function codeText(locale: MailLocale, code: string, purpose: CodePurpose, minutes: number): string {
  if (locale === 'ar') return `${arabic[purpose]} في نماء: ${code}. صالح ${minutes} دقيقة. لا تشاركه.`;
  return `Your Namaa ${english[purpose]} is ${code}. Valid ${minutes} min. Do not share it.`;
}
