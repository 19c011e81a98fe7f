// What other capabilities may use of passkeys: the periodic sweep of unfinished ceremonies (main.ts).
export { sweepPasskeyChallenges } from './passkeys.ts';
