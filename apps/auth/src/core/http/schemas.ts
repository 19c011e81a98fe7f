import { z } from 'zod';
import { AuthError } from '../../errors.ts';
import { MAX_METADATA_BYTES } from '../../features/user/user-update.ts';

// Shared request fragments. Strings are bounded so hostile sizes fail validation before any work.
export const emailField = z.string().max(1000);
export const passwordField = z.string().max(1000);
export const metadataField = z.unknown().optional();

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
