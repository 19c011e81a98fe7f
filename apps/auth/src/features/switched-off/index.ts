// What other features may use of the switched-off features (the session's /token grant table).
export { type IdTokenGrantInput, idTokenGrant, web3Grant } from './grants.ts';
