// What other capabilities may use from features/user (the linter refuses any other path in):
// the email links confirm and resend an email change, under the change's own mail quota.
export { EMAIL_CHANGE_HALF_CONFIRMED, emailChangeQuota, mailEmailChange } from './email-change.ts';
// The account's deletion (features/account) proves its owner with the same emailed nonce as a
// password change (GET /reauthenticate).
export { checkNonceGiven, consumeNonce } from './reauthenticate.ts';
