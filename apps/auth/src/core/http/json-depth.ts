/**
 * Request bodies may nest objects and arrays at most this deep. Real requests nest 2–3 levels (user
 * metadata a few more); a 10,000-deep body parses fine in V8 but overflows the stack further on
 * (serialising the response, PostgreSQL's jsonb parser), which would surface as a 500.
 */
export const MAX_JSON_DEPTH = 64;

/** Why JSON text is refused before it is parsed. */
export type JsonTextProblem = 'too_deep' | 'nul';

/**
 * What is wrong with JSON text, if anything: nesting deeper than `limit`, or a string (value or key,
 * at any depth) holding U+0000. PostgreSQL stores neither a NUL in text nor `\u0000` in jsonb, so
 * such a body would only fail later, inside a query whose error lists every bound value (a password
 * hash, a TOTP secret). JSON can carry a NUL only as the escape `\u0000` (a raw one does not parse).
 * One pass over the text, skipping string contents, so it costs next to nothing on the hot paths'
 * ~100-byte bodies and cannot itself overflow the stack.
 */
export function jsonTextProblem(text: string, limit: number): JsonTextProblem | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) {
        // A backslash: `\u0000` is a NUL; anything else, skip the escaped character (so `\\u0000`
        // is a backslash followed by plain text).
        if (text.charCodeAt(i + 1) === 0x75 && text.startsWith('0000', i + 2)) return 'nul';
        i++;
      } else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return 'too_deep';
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return undefined;
}
