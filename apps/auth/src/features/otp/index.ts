// What other features may use of the OTP capability: /verify checks phone codes here; sign-up,
// /resend and the user update send them.
export {
  assertPhoneEnabled,
  enforcePhoneFloor,
  type PhoneCodeType,
  parseChannel,
  requestPhoneChange,
  resendPhoneCode,
  sendPhoneCode,
  unsentMessageId,
  verifyPhoneOtp,
} from './phone.ts';
