// What other features may use of the account feature: the admin CLI serves the data-subject
// requests that arrive by email (PDPL) with the same export and erasure as the account page.
export { type AccountExport, eraseAccountFor, exportAccount } from './account.ts';
