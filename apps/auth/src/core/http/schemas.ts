import { z } from 'zod';
import { AuthError } from '../../errors.ts';
import { normalizeDigits } from '../digits.ts';

// Shared request fragments. Strings are bounded so hostile sizes fail validation before any work.
export const emailField = z.string().max(1000);
export const passwordField = z.string().max(1000);
export const metadataField = z.unknown().optional();

/**
 * A typed code (email/SMS OTP, TOTP, reauthentication nonce) or phone number: bounded as typed, then
 * normalized (core/digits.ts) before any check, so the handler only ever sees ASCII digits.
 * `overwrite` keeps the schema a plain string in the OpenAPI document.
 */
export const codeField = (max: number) =>
  z
    .string()
    .max(max)
    .overwrite((v) => normalizeDigits(v, 'code'));
export const phoneField = (max = 100) =>
  z
    .string()
    .max(max)
    .overwrite((v) => normalizeDigits(v, 'phone'));

/**
 * The cap on user metadata, per request (parseMetadata below) and as stored after a merge
 * (features/user/user-update.ts), measured as JSON.stringify length. The metadata is copied into every
 * access token (base64: 4/3 of its size, plus the other claims), and a token must stay under the 16 KB
 * that Node accepts for all request headers and that crypto/jwt.ts accepts for a token: 8,020
 * characters of metadata made an 11,468-character token, 14,020 one of 19,468 that locked the account
 * out (every request 431). GoTrue sets no cap.
 */
export const MAX_METADATA_BYTES = 8 * 1024;

/**
 * User metadata: a plain JSON object of bounded size. Rebuilt with Object.fromEntries so keys such
 * as "__proto__" stay ordinary data (no prototype pollution).
 */
export function parseMetadata(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new AuthError('validation_failed', 'data must be an object');
  const json = JSON.stringify(value);
  if (json.length > MAX_METADATA_BYTES) throw new AuthError('validation_failed', 'data is too large');
  return Object.fromEntries(Object.entries(value as Record<string, unknown>));
}
