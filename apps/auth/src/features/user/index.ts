// What other capabilities may use from features/user (the linter refuses any other path in):
// the email links confirm and resend an email change.
export { EMAIL_CHANGE_HALF_CONFIRMED, mailEmailChange } from './email-change.ts';
