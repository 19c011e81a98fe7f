// What other capabilities may use from features/mfa (the linter refuses any other path in): the
// user update asks for aal2 when the account has a verified factor; the admin API drops a deleted
// factor's AMR method from the sessions that used it, and the recovery codes its last factor leaves.
export { AMR_METHOD, hasVerifiedFactor } from './factors.ts';
export { dropOrphanedRecoveryCodes } from './recovery-codes.ts';
