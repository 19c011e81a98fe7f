// What other features may use of anonymous sign-in (sign-up routes a body without email or phone here).
export { signInAnonymously } from './anonymous.ts';
