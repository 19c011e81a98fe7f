// What other features may use of the OTP capability (/verify checks phone codes here).
export { parsePhone, verifyPhoneOtp } from './phone.ts';
