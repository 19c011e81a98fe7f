// TOTP per RFC 6238 through otplib: SHA-1, 6 digits, 30 s period, ±1 step of clock skew.
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

export const TOTP_PERIOD = 30;

/** 20 random bytes in base32 (32 characters), like GoTrue. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(issuer: string, account: string, secret: string): string {
  return generateURI({ issuer, label: account, secret, algorithm: 'sha1', digits: 6, period: TOTP_PERIOD });
}

/** The QR code as raw SVG markup (the client prefixes `data:image/svg+xml;utf-8,`). Level H as GoTrue. */
export function totpQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'H', margin: 2 });
}

/**
 * Checks a code at `nowSec` (±1 step). Returns the matched time step (for replay protection) or
 * undefined. Constant-time comparison is otplib's.
 */
export async function checkTotp(secret: string, code: string, nowSec: number): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = await verify({ secret, token: code, epoch: nowSec, epochTolerance: TOTP_PERIOD });
  return result.valid ? (result as { timeStep: number }).timeStep : undefined;
}
