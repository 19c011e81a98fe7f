// What other features may use of social sign-in (the session's /token grant table).
export { type IdTokenInput, idTokenGrant } from './id-token.ts';
