// TOTP per RFC 6238 through otplib: SHA-1, 6 digits, 30 s period, ±1 step of clock skew.
import { generateSecret, verify } from 'otplib';
import QRCode from 'qrcode';

export const TOTP_PERIOD = 30;

/** 20 random bytes in base32 (32 characters), like GoTrue. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/**
 * GoTrue's URI, every parameter explicit (otplib's generateURI leaves defaults out, and some
 * authenticator apps then guess): otpauth://totp/<issuer>:<account>?algorithm=SHA1&digits=6&…
 */
export function totpUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    algorithm: 'SHA1',
    digits: '6',
    issuer,
    period: String(TOTP_PERIOD),
    secret,
  });
  return `otpauth://totp/${label}?${query}`;
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
