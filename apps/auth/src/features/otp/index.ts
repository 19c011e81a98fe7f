// What other features may use of the OTP capability: /verify checks phone codes here; sign-up,
// /resend, the user update and reauthentication send them.
export {
  assertPhoneEnabled,
  enforcePhoneFloor,
  type PhoneCodeType,
  parseChannel,
  requestPhoneChange,
  resendPhoneCode,
  sendPhoneCode,
  type TextedCodeType,
  unsentMessageId,
  verifyPhoneOtp,
} from './phone.ts';
