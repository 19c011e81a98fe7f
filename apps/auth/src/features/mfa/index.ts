// What other capabilities may use from features/mfa (the linter refuses any other path in): the
// user update asks for aal2 when the account has a verified factor.
export { hasVerifiedFactor } from './factors.ts';
